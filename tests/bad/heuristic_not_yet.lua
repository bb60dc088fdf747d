-- expect: heuristic: Lua heuristic scripts are not supported yet ("mine.lua"); remove the field to use the built-in planners
return {
  dcs = { { name = "ams", pools = { { gpu = "H100", count = 16 } } } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
  heuristic = "mine.lua",
}
