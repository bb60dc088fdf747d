-- expect: loop.lua:4: instruction budget
return {
  compute = function(layer, gpu, ctx)
    while true do end
  end,
}
