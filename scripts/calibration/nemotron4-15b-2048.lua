-- nemotron4-15b-2048.lua: Nemotron-4-15B pre-training on 2048 H100s, measured.
--
-- Source: NVIDIA/dgxc-benchmarking v24.11.1 (commit 35a9aec),
-- nemotron/README_15b.md: NeMo/Megatron-Core on DGX H100, BF16, TP 4, PP 1,
-- DP 512, 1 virtual stage, micro-batch 4, global batch 8192, activation
-- recomputation "none": 2.96 s per step. README.md here says how a
-- recipe becomes a scenario.
return {
  name = "nemotron4-15b-2048",
  dcs = { { name = "dgx", pools = {
    { gpu = "H100", count = 2048, per_node = 8, network = Gbps(400) } } } },
  model = { name = "Nemotron-4-15B", layers = 32, hidden = 6144, heads = 48, kv_heads = 8,
    ffn = 24576, vocab = 256000 },
  job = { seq = 4096, global_batch = 8192, micro_batch = 4, zero = 1,
    recompute = "none", precision = "bf16", optimizer = "adam",
    attention = "flash", sequence_parallel = true, tp_overlap = true,
    p2p_overlap = false },
  measured = { iteration_time = 2.96 },
  plan = {
    schedule = "1f1b",
    pipelines = { { micro_batches = 4, replicas = 512, stages = { { dc = "dgx", tp = 4, layers = { 1, 32 } } } } },
  },
}
