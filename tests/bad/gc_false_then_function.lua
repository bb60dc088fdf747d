-- expect: gc_false_then_function.lua:4: setmetatable: a metatable with __gc is not allowed
-- __gc = false marks the object for finalization; a function set later would run at close
local mt = { __gc = false }
keep = setmetatable({}, mt)
mt.__gc = function() while true do end end
return {}
