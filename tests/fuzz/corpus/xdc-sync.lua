-- Three DCs in a chain, two data-parallel pipelines and the
-- latency-aware schedule: seeds the fuzzer with the sync and xdc paths.
return {
  name = "fuzz-chain",
  dcs = {
    { name = "a", pools = { { gpu = "A100-80", count = 16 } } },
    { name = "b", pools = { { gpu = "A100-80", count = 16 } } },
    { name = "c", pools = { { gpu = "H100", count = 8 } } },
  },
  links = {
    { "a", "b", bandwidth = Gbps(100), latency = ms(2) },
    { "b", "c", bandwidth = Gbps(10), latency = ms(30), reverse = { bandwidth = Gbps(5) } },
  },
  model = "Llama-2-7B",
  job = { seq = 4096, global_batch = 32, micro_batch = 1, zero = 1, recompute = "selective" },
  plan = { schedule = "xdc-greedy", sync = "hierarchical", pipelines = {
    { micro_batches = 16, replicas = 2, stages = {
      { dc = "a", gpu = "A100-80", tp = 4, layers = { 1, 16 } },
      { dc = "b", gpu = "A100-80", tp = 4, layers = { 17, 32 } } } } } },
}
