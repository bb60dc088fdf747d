-- expect: job.cross_entropy: expected one of "fused", "unfused", got "fusd"
return {
  dcs = { { name = "a", pools = { { gpu = "H100", count = 8 } } } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 8, cross_entropy = "fusd" },
}
