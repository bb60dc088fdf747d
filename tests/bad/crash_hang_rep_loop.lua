-- expect: crash_hang_rep_loop.lua:4: instruction budget of 50000000 exceeded (building large strings or tables?)
-- within: 5
-- (was: minutes of string.rep of 16 MiB, work inside C calls not counted)
for i = 1, 1e9 do local s = string.rep("x", 2^24) end
return {}
