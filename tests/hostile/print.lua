-- expect: [tests/hostile/print.lua:4] a layer of kind block
return {
  compute = function(layer, gpu, ctx)
    print("a layer of kind " .. layer.kind)
    return geoplan.default.compute(layer, gpu, ctx)
  end,
}
