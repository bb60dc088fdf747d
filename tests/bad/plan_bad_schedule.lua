-- expect: plan.schedule: expected one of "1f1b", "gpipe", "interleaved", "zb-h1", "xdc-greedy", "xdc-milp", got "2f2b"
return {
  name = "bad",
  dcs = {
    { name = "ams", pools = { { gpu = "H100", count = 16, per_node = 8 } } },
    { name = "fra", pools = { { gpu = "A100-80", count = 16 } } },
  },
  links = { { "ams", "fra", bandwidth = Gbps(100), latency = ms(4) } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16, micro_batch = 1 },
  plan = { schedule = "2f2b", pipelines = {
    { micro_batches = 16, stages = {
      { dc = "ams", gpu = "H100", tp = 4, layers = { 1, 16 } },
      { dc = "fra", gpu = "A100-80", tp = 4, layers = { 17, 32 } } } } } },
}
