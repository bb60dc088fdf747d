-- expect: model: unknown model "llama-2-7b" (did you mean "Llama-2-7B"? catalog: 
return {
  dcs = { { name = "ams", pools = { { gpu = "H100", count = 16 } } } },
  model = "llama-2-7b",
  job = { seq = 4096, global_batch = 16 },
}
