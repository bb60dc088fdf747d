-- expect: pattern.lua:4: instruction budget
return {
  compute = function(layer, gpu, ctx)
    string.find(string.rep("a", 3000), ".-.-.-b")
    return 1e-3
  end,
}
