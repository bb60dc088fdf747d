-- expect: crash_hang_pattern.lua:4: instruction budget of 50000000 exceeded (in string.find)
-- within: 5
-- (was: minutes inside one string.find, backtracking the hook cannot see)
local x = string.find(string.rep("a", 30), string.rep("a*", 30) .. "b")
return {}
