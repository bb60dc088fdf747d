-- expect: gc_finalizer.lua:4: setmetatable: a metatable with __gc is not allowed
-- within: 5
-- (was: endless: the finalizer ran in lua_close, where no budget is armed)
setmetatable({}, {__gc = function() while true do end end})
return {}
