-- expect: tests/bad/mine.lua: cannot open: No such file or directory
return {
  dcs = { { name = "ams", pools = { { gpu = "H100", count = 16 } } } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
  heuristic = "mine.lua",
}
