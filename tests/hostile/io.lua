-- expect: io.lua:2: attempt to index a nil value (global 'io')
local f = io.open("/etc/passwd")
return {}
