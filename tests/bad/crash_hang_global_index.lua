-- expect: crash_hang_global_index.lua: catalog: expected the prelude's catalog (a table), got nil
-- within: 5
-- (was: endless, lua_getglobal ran _G's __index after the hook was removed)
catalog = nil
setmetatable(_G, { __index = function() while true do end end })
return {}
