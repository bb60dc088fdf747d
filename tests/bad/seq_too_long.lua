-- expect: job.seq: 1000000000 tokens is more than 10000000
return {
  dcs = { { name = "ams", pools = { { gpu = "H100", count = 16 } } } },
  model = "Llama-3-8B",
  job = { seq = 1e9, global_batch = 16 },
}
