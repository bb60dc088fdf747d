-- default.lua: a small two-DC scenario that simulates in an instant.
--
-- Llama-3-8B on 16 H100 in Amsterdam and 16 A100-80 in Frankfurt, joined
-- by one 100 Gbit/s link. The plan runs two identical pipelines (two DP
-- replicas); each has its first two stages in ams and its last two in fra,
-- so only activations cross the WAN: every DP group (the same stage of
-- both replicas) sits inside one DC, and gradient sync stays local.
--
-- Layer split. The H100 peak is 989 / 312 = 3.17 times the A100's, so an
-- A100 stage should get about a third of an H100 stage's layers. The last
-- stage also carries the logits, 2bshV = 2*4096*4096*128256 = 4.3 TFLOP
-- forward, about 2.1 layers' worth (one layer is ~2.06 TFLOP forward at
-- b = 1, s = 4096). With x layers on each H100 stage and y, y' on the A100
-- stages: x = 3.17 y = 3.17 (y' + 2.1) and 2x + y + y' = 32 give x = 13,
-- y = 4, y' = 2:
--   ams H100 13 layers   -> 13 H100-layer units
--   ams H100 13 layers   -> 13
--   fra A100  4 layers   -> 4 * 3.17       = 12.7
--   fra A100  2 + logits -> (2 + 2.1) * 3.17 = 13.0
-- Layers: 1-13, 14-26, 27-30, 31-32 tile 1..32.
--
-- Batch: 2 replicas * 32 micro-batches * micro_batch 1 = 64 = global_batch.
-- GPUs: ams H100 2 stages * tp 4 * 2 replicas = 16 of 16;
--       fra A100-80 2 stages * tp 4 * 2 replicas = 16 of 16.
return {
  name = "default",
  gpus = {
    -- Prices are assumptions for illustration only, not quotes: put your
    -- own. Without them geoplan counts only WAN egress in the cost.
    ["H100"]    = { price_per_hour = 2.50 },   -- USD per GPU hour (assumed)
    ["A100-80"] = { price_per_hour = 1.60 },   -- USD per GPU hour (assumed)
  },
  dcs = {
    { name = "ams", pools = {
        { gpu = "H100", count = 16, per_node = 8 } } },
    { name = "fra", pools = {
        { gpu = "A100-80", count = 16, per_node = 8 } } },
  },
  links = {
    { "ams", "fra", bandwidth = Gbps(100), latency = ms(4), price_per_gb = 0.02 },
  },
  model = "Llama-3-8B",
  job = {
    seq = 4096, global_batch = 64, micro_batch = 1,
    precision = "bf16", optimizer = "adam", zero = 1,
    recompute = "none",
    sync = { mode = "hierarchical", every = 1 },
  },
  objective = "time",
  plan = {
    schedule = "1f1b",
    pipelines = {
      { micro_batches = 32, replicas = 2, stages = {
          { dc = "ams", gpu = "H100",    tp = 4, layers = { 1, 13 } },
          { dc = "ams", gpu = "H100",    tp = 4, layers = { 14, 26 } },
          { dc = "fra", gpu = "A100-80", tp = 4, layers = { 27, 30 } },
          { dc = "fra", gpu = "A100-80", tp = 4, layers = { 31, 32 } },
      } },
    },
  },
}
