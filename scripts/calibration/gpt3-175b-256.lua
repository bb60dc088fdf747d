-- gpt3-175b-256.lua: GPT-3-175B pre-training on 256 H100s, measured.
--
-- Source: NVIDIA/dgxc-benchmarking v24.11.1 (commit 35a9aec),
-- nemo_megatron/README_175b.md: NeMo/Megatron-Core on DGX H100, BF16, TP 4, PP 8,
-- DP 8, 12 virtual stages, micro-batch 1, global batch 512, activation
-- recomputation "none": 8.95 s per step. README.md here says how a
-- recipe becomes a scenario.
local stages = {}
for i = 0, 7 do
  stages[#stages + 1] = { dc = "dgx", tp = 4, layers = { 12 * i + 1, 12 * i + 12 } }
end
return {
  name = "gpt3-175b-256",
  dcs = { { name = "dgx", pools = {
    { gpu = "H100", count = 256, per_node = 8, network = Gbps(400) } } } },
  model = "GPT-3-175B",
  job = { seq = 2048, global_batch = 512, micro_batch = 1, zero = 1,
    recompute = "none", precision = "bf16", optimizer = "adam",
    attention = "flash", sequence_parallel = true, tp_overlap = true,
    p2p_overlap = true },
  measured = { iteration_time = 8.95 },
  plan = {
    schedule = "interleaved", chunks = 12,
    pipelines = { { micro_batches = 64, replicas = 8, stages = stages } },
  },
}
