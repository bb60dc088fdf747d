-- expect: attempt to call a nil value (global 'load')
load("return 1")()
return {}
