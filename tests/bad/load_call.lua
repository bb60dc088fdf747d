-- expect: 'load' is not available in geoplan's sandbox
load("return 1")()
return {}
