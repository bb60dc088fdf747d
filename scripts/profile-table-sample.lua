-- profile-table-sample.lua: a small OPT-350M scenario planned with
-- Sailor's measured layer times (cost_model = "profile-table.lua").
--
-- A scaled-down copy of Sailor's heterogeneous experiment (F. Strati et
-- al., SOSP '25; see samples/p4.lua): one cloud zone with 8 A100-40 and
-- 8 V100-16 in VMs of 4 GPUs, about 1.7 GB/s per GPU between VMs (the
-- paper's A100-V100 figure), OPT-350M at seq 2048. The global batch (64)
-- and the micro-batch (2) are this file's choice, so the table's
-- micro-batch 2 rows are the ones read.
--
-- Plan, from the table (ms per block for micro-batch 2, forward +
-- backward): A100-40 at TP 2: 2.624 + 6.325 = 8.95; V100-16 at TP 4:
-- 5.193 + 10.241 = 15.43. Two stages of 12 blocks each:
--   A100 pipeline (TP 2 x 2 stages, 2 replicas): 12 * 8.95 = 107 ms
--   per micro-batch and stage; V100 pipeline (TP 4 x 2 stages, 1
--   replica): 12 * 15.43 = 185 ms.
-- 32 micro-batches split as 2 x 12 on the A100s and 8 on the V100s:
-- 12 * 107 = 1.29 s against 8 * 185 = 1.48 s of steady state each.
-- Batch: 2 * 12 * 2 + 1 * 8 * 2 = 64. GPUs: A100-40 2 * 2 * 2 = 8 of 8,
-- V100-16 1 * 2 * 4 = 8 of 8.
return {
  name = "profile-table-sample",
  cost_model = "profile-table.lua",
  dcs = {
    { name = "zone", pools = {
        { gpu = "A100-40", count = 8, per_node = 4, network = GBps(1.7) },
        { gpu = "V100-16", count = 8, per_node = 4, network = GBps(1.7) },
    } },
  },
  model = "OPT-350M",
  job = {
    seq = 2048, global_batch = 64, micro_batch = 2,
    precision = "fp16", zero = 1,
    recompute = "none",
  },
  plan = {
    schedule = "1f1b",
    pipelines = {
      { micro_batches = 12, replicas = 2, stages = {
          { dc = "zone", gpu = "A100-40", tp = 2, layers = { 1, 12 } },
          { dc = "zone", gpu = "A100-40", tp = 2, layers = { 13, 24 } },
      } },
      { micro_batches = 8, replicas = 1, stages = {
          { dc = "zone", gpu = "V100-16", tp = 4, layers = { 1, 12 } },
          { dc = "zone", gpu = "V100-16", tp = 4, layers = { 13, 24 } },
      } },
    },
  },
}
