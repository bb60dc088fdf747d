-- A new GPU type and a custom model in a DC beside a catalog type, with
-- prices: seeds the fuzzer with the catalog's paths.
return {
  name = "fuzz-custom",
  gpus = {
    ["X1"] = { tflops = TFLOPS(400), memory = GiB(48), hbm_bandwidth = GBps(2000),
               nvlink = GBps(100), efficiency = 0.6, price_per_hour = 1.5 },
    ["H100"] = { price_per_hour = 2.5 },
  },
  dcs = {
    { name = "ams", pools = { { gpu = "H100", count = 8, per_node = 8 },
                              { gpu = "X1", count = 4, per_node = 4 } } },
    { name = "fra", pools = { { gpu = "X1", count = 8, per_node = 4,
                                network = Gbps(200), latency = us(5) } } },
  },
  links = { { "ams", "fra", bandwidth = Gbps(40), latency = ms(9), price_per_gb = 0.02 } },
  model = { name = "tiny", layers = 12, hidden = 2048, heads = 16, kv_heads = 4,
            ffn = 5632, vocab = 32000, gated = true },
  job = { seq = 2048, global_batch = 16, micro_batch = 2, recompute = "full" },
  plan = { schedule = "interleaved", chunks = 2, pipelines = {
    { micro_batches = 8, stages = {
      { dc = "ams", gpu = "H100", tp = 4, layers = { 1, 6 } },
      { dc = "fra", gpu = "X1", tp = 4, layers = { 7, 12 } } } } } },
}
