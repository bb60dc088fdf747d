-- p2.lua: published setting P2.
--
-- Source: CrossPipe, T. Chen, A. Kubicek, L. Huang, T. Hoefler, "CrossPipe:
-- Towards Optimal Pipeline Schedules for Cross-Datacenter Training",
-- USENIX ATC '25 (arXiv 2507.00217), its larger setting: four DCs of
-- 8 GPUs, TP4 and PP2 inside each DC, a 70B-class shape (64 layers,
-- h 8192, FFN 28672, 8 KV heads), seq 4096, b 1, global batch 16 or 32,
-- with (alpha, beta-delay) pairs drawn from {0, 0.25, 2} x T_F.
-- Reported: when memory is relaxed, the optimised schedules stay close to
-- the ideal schedule without any delay.
--
-- Assumed here, not given as numbers by the setting:
--  * GPU type: H100 (80 GB). The setting names no type for P2.
--  * vocab = 128256 (the Llama 3 tokenizer) and the name; layers, hidden,
--    heads, KV heads, FFN and gating are the setting's. The vocabulary
--    only affects the first and last stages.
--  * global_batch = 32 (the larger of the two published values).
--  * T_F from geoplan's own cost model: forward FLOPs of one layer,
--    b = 1, s = 4096, h = 8192, a = 64, k = 8, f = 28672, gated (g = 3):
--      QKV     2bs*h*(h + 2h*k/a) = 2*4096*8192*10240   = 0.687e12
--      output  2bs*h^2            = 2*4096*8192^2       = 0.550e12
--      scores  4b*s^2*h           = 4*4096^2*8192       = 0.550e12
--      MLP     2bs*h*f*g          = 2*4096*8192*28672*3 = 5.772e12
--      layer total                                      = 7.559e12 FLOP
--    A stage holds 64 / 8 = 8 layers on tp = 4 H100 at 989 x 0.5 TFLOP/s:
--      T_F = 8 * 7.559e12 / 4 / 494.5e12 = 30.6 ms   (compute only)
--  * Links at the (0.25, 0.25) point: latency = 0.25 x T_F = 7.6 ms, and a
--    bandwidth whose delay for one boundary message (2bsh = 67.1 MB) is
--    also 0.25 x T_F: 67.1e6 B / 7.64e-3 s = 8.78e9 B/s = 70.2 Gbit/s.
--    Other points: latency = ms(30.6 * x), bandwidth = Gbps(17.55 / x).
--  * Only the three links the pipeline uses (a chain dc1-dc2-dc3-dc4).
--  * recompute = "selective" (FlashAttention-style: attention scores are
--    never stored). Per GPU of stage 1: weights and Adam state
--    8 * 855.6M / 4 params * 16 B = 27.4 GB, embedding 4.2 GB, activations
--    8 layers * 285 MB * 8 in flight = 18.3 GB: about 50 of 80 GB, which
--    leaves the memory a latency-aware schedule needs. (Without it,
--    1F1B alone would need 104 GB of activations on stage 1.)
--
-- Plan check: 8 stages of 8 layers (1-8, 9-16, ..., 57-64) tile 1..64;
-- 1 pipeline * 32 micro-batches * micro_batch 1 = 32 = global_batch;
-- GPUs per DC: 2 stages * tp 4 = 8 of 8.
return {
  name = "p2-crosspipe-70b",
  dcs = {
    { name = "dc1", pools = { { gpu = "H100", count = 8, per_node = 8 } } },
    { name = "dc2", pools = { { gpu = "H100", count = 8, per_node = 8 } } },
    { name = "dc3", pools = { { gpu = "H100", count = 8, per_node = 8 } } },
    { name = "dc4", pools = { { gpu = "H100", count = 8, per_node = 8 } } },
  },
  links = {
    { "dc1", "dc2", bandwidth = Gbps(70.2), latency = ms(7.6) },
    { "dc2", "dc3", bandwidth = Gbps(70.2), latency = ms(7.6) },
    { "dc3", "dc4", bandwidth = Gbps(70.2), latency = ms(7.6) },
  },
  model = {
    name = "70B-shape", layers = 64, hidden = 8192, heads = 64, kv_heads = 8,
    ffn = 28672, vocab = 128256, gated = true,
  },
  job = {
    seq = 4096, global_batch = 32, micro_batch = 1,
    precision = "bf16", zero = 1,
    recompute = "selective",
  },
  plan = {
    schedule = "1f1b",
    pipelines = {
      { micro_batches = 32, replicas = 1, stages = {
          { dc = "dc1", gpu = "H100", tp = 4, layers = { 1, 8 } },
          { dc = "dc1", gpu = "H100", tp = 4, layers = { 9, 16 } },
          { dc = "dc2", gpu = "H100", tp = 4, layers = { 17, 24 } },
          { dc = "dc2", gpu = "H100", tp = 4, layers = { 25, 32 } },
          { dc = "dc3", gpu = "H100", tp = 4, layers = { 33, 40 } },
          { dc = "dc3", gpu = "H100", tp = 4, layers = { 41, 48 } },
          { dc = "dc4", gpu = "H100", tp = 4, layers = { 49, 56 } },
          { dc = "dc4", gpu = "H100", tp = 4, layers = { 57, 64 } },
      } },
    },
  },
}
