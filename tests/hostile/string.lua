-- expect: string.lua:3: compute(layer=block, gpu=H100, dc=ams, tp=1, recompute=none) returned a string ("0.001"); expected a finite number of seconds >= 0
return {
  compute = function(layer, gpu, ctx) return "0.001" end,
}
