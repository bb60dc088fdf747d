-- expect: dcs[1].pools[1].gpu: unknown GPU "A100" (did you mean "A100-40" or "A100-80"? GPUs:
return {
  dcs = { { name = "ams", pools = { { gpu = "A100", count = 16 } } } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
}
