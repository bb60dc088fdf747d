-- expect: attempt to call a nil value (global 'require')
local x = require("os")
return {}
