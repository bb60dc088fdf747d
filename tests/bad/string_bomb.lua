-- expect: string_bomb.lua:2: resulting string too large
local s = string.rep("x", 1 << 40)
return {}
