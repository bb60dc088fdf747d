-- expect: cost_model: Lua cost-model scripts are not supported yet ("my_model.lua"); remove the field to use the built-in cost model
return {
  dcs = { { name = "ams", pools = { { gpu = "H100", count = 16 } } } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
  cost_model = "my_model.lua",
}
