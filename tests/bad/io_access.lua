-- expect: 'io' is not available in geoplan's sandbox
local f = io.open("/etc/passwd")
return {}
