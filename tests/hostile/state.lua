-- expect: state.lua:5: assignment to global 'calls' (cost-model functions must be pure; use local)
calls = 0
return {
  compute = function(layer, gpu, ctx)
    calls = calls + 1
    return 1e-3
  end,
}
