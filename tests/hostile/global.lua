-- expect: global.lua:4: assignment to global 'cache' (cost-model functions must be pure; use local)
return {
  compute = function(layer, gpu, ctx)
    cache = layer
    return 1e-3
  end,
}
