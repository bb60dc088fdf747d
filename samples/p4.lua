-- p4.lua: published setting P4.
--
-- Source: Sailor (F. Strati et al., "Sailor: Automating Distributed
-- Training over Dynamic, Heterogeneous, and Geo-distributed Clusters",
-- SOSP '25), its heterogeneous experiment: OPT-350M in one cloud zone on
-- a mix of A100-40 and V100-16 GPUs, at 32+96, 80+240 and 128+384; the
-- measured A100-V100 bandwidth is ~1.7 GB/s. Reported: planning over both
-- GPU types beats using only one type.
--
-- Assumed here, not given as numbers by the setting:
--  * The smallest size, 32 A100-40 + 96 V100-16; global batch 1024 and
--    seq 2048 as in the geo-distributed experiment (P3).
--  * precision = "fp16": V100s have no bf16 tensor cores.
--  * 4 GPUs per node for both types; 1.7 GB/s per GPU between nodes for
--    both pools (the measured A100-V100 figure, also used for same-type
--    pairs); no links, since everything is in one zone.
--  * Efficiency calibrated to Sailor's profiled OPT-350M layer times
--    (b 1, TP 1, forward / backward): A100-40 2.79 / 5.91 ms, V100-16
--    7.79 / 17.20 ms. With fused attention, the default, efficiency
--    0.096 (A100-40) and 0.083 (V100-16) give 2.70 / 6.00 ms and 7.78 /
--    17.32 ms per layer (geoplan.layer_time in a heuristic script,
--    geoplan-lua(7)). (0.18 and 0.13 matched them when attention was
--    materialised; with fused attention they give 1.46 / 3.23 ms and
--    5.00 / 11.11 ms.) At the fitted A100 default, 0.89, the model gives
--    about a ninth of Sailor's times: its small layers pay overheads the
--    model does not know. Delete the overrides to use the default.
--  * GPU prices: $3.00 (A100-40) and $2.50 (V100-16) per GPU hour,
--    assumptions for illustration only.
--
-- Plan: 32 identical heterogeneous pipelines, one A100 and three V100s
-- each, so every GPU is used. Per micro-batch, forward + backward, per
-- layer about 8.7 ms on an A100 and 25.1 ms on a V100, so 14 A100 layers
-- (122 ms) against 4 V100 layers (100 ms), the last stage also
-- carrying the logits (geoplan sim prints each stage's F and B): the
-- A100 stage is the slowest. Layers 1-14, 15-18, 19-22, 23-24 tile
-- 1..24. This plan simulates 4.24 s; `geoplan plan` finds 3.98 s.
-- Memory without recomputation, stage 1: 4 micro-batches in flight *
-- 14 layers * s*b*h*34 B (fused attention stores no scores) = 4 * 14 *
-- 2048*1024*34 B = 4.0 GB of 40 GB; a V100 stage holds at most 3 * 4
-- layers' worth = 0.86 GB of 16.
-- Batch: 32 replicas * 32 micro-batches * micro_batch 1 = 1024.
-- GPUs: A100-40 32 * 1 stage * tp 1 = 32 of 32;
--       V100-16 32 * 3 stages * tp 1 = 96 of 96.
return {
  name = "p4-sailor-hetero",
  gpus = {
    ["A100-40"] = { efficiency = 0.096, price_per_hour = 3.00 },
    ["V100-16"] = { efficiency = 0.083, price_per_hour = 2.50 },
  },
  dcs = {
    { name = "zone", pools = {
        { gpu = "A100-40", count = 32, per_node = 4, network = GBps(1.7) },
        { gpu = "V100-16", count = 96, per_node = 4, network = GBps(1.7) },
    } },
  },
  model = "OPT-350M",
  job = {
    seq = 2048, global_batch = 1024, micro_batch = 1,
    precision = "fp16", zero = 1,
    recompute = "none",
  },
  objective = "time",
  plan = {
    schedule = "1f1b",
    pipelines = {
      { micro_batches = 32, replicas = 32, stages = {
          { dc = "zone", gpu = "A100-40", tp = 1, layers = { 1, 14 } },
          { dc = "zone", gpu = "V100-16", tp = 1, layers = { 15, 18 } },
          { dc = "zone", gpu = "V100-16", tp = 1, layers = { 19, 22 } },
          { dc = "zone", gpu = "V100-16", tp = 1, layers = { 23, 24 } },
      } },
    },
  },
}
