-- expect: nan.lua:3: memory(layer=block, gpu=H100, dc=ams, tp=1, recompute=none) returned NaN; expected a finite number of bytes >= 0
return {
  memory = function(layer, gpu, ctx) return 0 / 0 end,
}
