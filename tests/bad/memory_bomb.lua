-- expect: memory limit of 64 MiB exceeded
local t = {}
for i = 1, 1e9 do t[i] = string.rep("x", 1000) .. i end
return t
