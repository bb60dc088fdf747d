-- expect: deep.lua:4: attempt to perform arithmetic on a nil value (field 'flop')
local helpers = {}
function helpers.ratio(layer, gpu)
  return layer.flop / gpu.tflops
end
local function scaled(layer, gpu) return 2 * helpers.ratio(layer, gpu) end
return {
  compute = function(layer, gpu, ctx) local t = scaled(layer, gpu); return t end,
}
