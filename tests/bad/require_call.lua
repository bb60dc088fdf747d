-- expect: 'require' is not available in geoplan's sandbox
local x = require("os")
return {}
