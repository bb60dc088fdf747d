-- long-names.lua: DC names of the lengths clouds use, to check that the
-- reports' columns are as wide as their names (tests/report.test.sh).
-- us-central1-a and london-docklands run a pipeline on half their GPUs;
-- frankfurt-rhein-main is left out, its link to london-docklands slow
-- and its latency to us-central1-a written in seconds (30 for ms(30)).
-- Prices only for the H100s. The GPUs and the model are written out, so
-- the figures do not move when the catalog does.
return {
  name = "long-names",
  cost_model = "model.lua",
  gpus = {
    ["H100"] = { tflops = TFLOPS(989), memory = GB(80), hbm_bandwidth = GBps(3350),
                 nvlink = GBps(450), efficiency = 0.88, price_per_hour = 2.50 },
    ["A100-80"] = { tflops = TFLOPS(312), memory = GB(80), hbm_bandwidth = GBps(2039),
                    nvlink = GBps(300), efficiency = 0.88, price_per_hour = 0 },
  },
  dcs = {
    { name = "us-central1-a", pools = { { gpu = "H100", count = 16 } } },
    { name = "london-docklands", pools = { { gpu = "A100-80", count = 16 } } },
    { name = "frankfurt-rhein-main", pools = { { gpu = "H100", count = 8 } } },
  },
  links = {
    { "us-central1-a", "london-docklands", bandwidth = Gbps(100), latency = ms(35), price_per_gb = 0.02 },
    { "london-docklands", "frankfurt-rhein-main", bandwidth = Gbps(1), latency = ms(8) },
    { "us-central1-a", "frankfurt-rhein-main", bandwidth = Gbps(100), latency = 30 },
  },
  model = { name = "Llama-3-8B", layers = 32, hidden = 4096, heads = 32, kv_heads = 8,
            ffn = 14336, vocab = 128256, gated = true },
  job = { seq = 4096, global_batch = 32, micro_batch = 1, recompute = "none" },
  plan = {
    schedule = "1f1b",
    pipelines = {
      { micro_batches = 16, replicas = 2, stages = {
          { dc = "us-central1-a", gpu = "H100", tp = 4, layers = { 1, 20 } },
          { dc = "london-docklands", gpu = "A100-80", tp = 4, layers = { 21, 32 } },
      } },
    },
  },
}
