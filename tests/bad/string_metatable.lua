-- expect: string_metatable.lua:3: the string metatable is read-only
-- One scenario must not change ("x"):upper() for the prelude and every later chunk.
getmetatable("").__index = function() return function() return "hijacked" end end
return {}
