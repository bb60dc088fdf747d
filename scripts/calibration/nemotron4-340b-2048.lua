-- nemotron4-340b-2048.lua: Nemotron-4-340B pre-training on 2048 H100s, measured.
--
-- Source: NVIDIA/dgxc-benchmarking v24.11.1 (commit 35a9aec),
-- nemotron/README_340b.md: NeMo/Megatron-Core on DGX H100, BF16, TP 8, PP 8,
-- DP 32, 12 virtual stages, micro-batch 1, global batch 512, activation
-- recomputation "selective": 4.84 s per step. README.md here says how a
-- recipe becomes a scenario.
local stages = {}
for i = 0, 7 do
  stages[#stages + 1] = { dc = "dgx", tp = 8, layers = { 12 * i + 1, 12 * i + 12 } }
end
return {
  name = "nemotron4-340b-2048",
  dcs = { { name = "dgx", pools = {
    { gpu = "H100", count = 2048, per_node = 8, network = Gbps(400) } } } },
  model = { name = "Nemotron-4-340B", layers = 96, hidden = 18432, heads = 96, kv_heads = 8,
    ffn = 73728, vocab = 256000 },
  job = { seq = 4096, global_batch = 512, micro_batch = 1, zero = 1,
    recompute = "selective", precision = "bf16", optimizer = "adam-bf16",
    attention = "flash", sequence_parallel = true, tp_overlap = true,
    p2p_overlap = true },
  measured = { iteration_time = 4.84 },
  plan = {
    schedule = "interleaved", chunks = 12,
    pipelines = { { micro_batches = 16, replicas = 32, stages = stages } },
  },
}
