-- expect: tests/bad/no_such_model.lua: cannot open: No such file or directory
return {
  dcs = { { name = "ams", pools = { { gpu = "H100", count = 16 } } } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
  cost_model = "no_such_model.lua",
}
