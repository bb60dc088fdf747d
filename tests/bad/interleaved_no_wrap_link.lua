-- expect: plan.pipelines[1]: interleaved chunks go from the last stage in "c" back to the first in "a", which have no link
return {
  dcs = {
    { name = "a", pools = { { gpu = "H100", count = 8 } } },
    { name = "b", pools = { { gpu = "H100", count = 8 } } },
    { name = "c", pools = { { gpu = "H100", count = 8 } } },
  },
  links = {
    { "a", "b", bandwidth = Gbps(100), latency = ms(2) },
    { "b", "c", bandwidth = Gbps(100), latency = ms(2) },
  },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 6 },
  plan = { schedule = "interleaved", chunks = 2, pipelines = {
    { micro_batches = 6, stages = {
      { dc = "a", tp = 8, layers = { 1, 10 } },
      { dc = "b", tp = 8, layers = { 11, 20 } },
      { dc = "c", tp = 8, layers = { 21, 32 } } } } } },
}
