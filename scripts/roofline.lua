-- roofline.lua: layer times from the roofline model.
--
-- A layer's forward pass on one tensor-parallel rank takes as long as
-- the slower of its arithmetic and its memory traffic (Williams,
-- Waterman and Patterson, "Roofline: an insightful visual performance
-- model for multicore architectures", CACM 52(4), 2009):
--
--   forward = max(FLOPs / (t * peak), bytes / HBM bandwidth)
--
-- with t the TP degree, peak the GPU's dense 16-bit tensor peak and HBM
-- bandwidth from geoplan's catalog (vendor datasheets). A layer whose
-- arithmetic intensity (FLOPs per byte moved) is below the GPU's ridge
-- point, peak / HBM bandwidth (H100: 989e12 / 3.35e12 = 295 FLOP/B), is
-- memory-bound. The backward pass is twice the forward (two GEMMs per
-- forward GEMM), plus one more forward under full recomputation.
--
-- FLOPs: the layer descriptor's (Narayanan et al., SC '21, section 5.1,
-- as geoplan's default computes them).
--
-- Bytes moved, the model this script assumes: every 16-bit activation
-- the forward pass produces is written to HBM once and read back once,
-- and every weight is read once. The activations are those Megatron
-- keeps for the backward pass, counted by Korthikanti et al. ("Reducing
-- Activation Recomputation in Large Transformer Models", MLSys '23):
-- s*b*h*(34 + 5*a*s/h) bytes per block, divided by t with tensor and
-- sequence parallelism. So, per TP rank:
--
--   block:  2 * s*b*h*(34 + 5*a*s/h) / t  +  2 * params / t
--   logits: 2 * 4*s*b*V / t (fp32 logits, written and read)
--           + 2 * s*b*h (the input)  +  2 * V*h / t (the weights)
--
-- No fusion is assumed (FlashAttention never writes the a*s*s scores,
-- which the 5as/h term counts), so long sequences look more memory-bound
-- than a fused kernel is. TP all-reduces are added as geoplan's default
-- model computes them (two per block forward, a ring over NVLink inside
-- a node, the NICs beyond; geoplan.default.constants). Memory, channels
-- and the optimizer step are the default's.
--
-- peak_fraction and hbm_fraction scale the two roofs (1: the datasheet
-- figures, so the times are lower bounds); calibrate them to measured
-- runs.

local k = geoplan.default.constants

-- Ring all-reduce of `bytes` over p ranks (Patarasuk and Yuan, JPDC
-- 2009), as geoplan's default computes it.
local function ring(bytes, p, bw, lat)
  if p <= 1 then return 0 end
  return 2 * (p - 1) * lat + 2.0 * (p - 1) / p * bytes / bw
end

-- The two all-reduces of a block's forward under Megatron's TP.
local function tp_allreduce(l, ctx)
  local tp, pool = ctx.tp, ctx.pool
  local bytes = 2 * l.micro_batch * l.seq * l.hidden
  if tp <= 1 then return 0 end
  if tp <= pool.per_node then
    return 2 * ring(bytes, tp, pool.nvlink * k.eta_nvlink, k.ring_step)
  end
  local bw = math.min(pool.nvlink * k.eta_nvlink, pool.network * k.eta_net * pool.per_node)
  return 2 * ring(bytes, tp, bw, pool.latency)
end

-- Bytes one TP rank moves in the layer's forward pass (the model above).
local function bytes_moved(l, tp)
  local s, b, h = l.seq, l.micro_batch, l.hidden
  if l.kind == "logits" then
    return 2 * 4 * s * b * l.vocab / tp + 2 * s * b * h + 2 * l.params / tp
  end
  return 2 * s * b * h * (34 + 5 * l.heads * s / h) / tp + 2 * l.params / tp
end

local function compute(l, gpu, ctx)
  local p = ctx.params
  local arith = l.flops / (ctx.tp * gpu.tflops * p.peak_fraction)
  local traffic = bytes_moved(l, ctx.tp) / (gpu.hbm_bandwidth * p.hbm_fraction)
  local f = math.max(arith, traffic)
  if l.kind == "block" then f = f + tp_allreduce(l, ctx) end
  local b = 2 * f
  if ctx.recompute == "full" then b = b + f end
  return f, b
end

return {
  description = "roofline: max(FLOPs / peak, bytes / HBM bandwidth) per layer, backward 2x",
  params = {
    peak_fraction = { 1.0, min = 0.05, max = 1.0 },
    hbm_fraction = { 1.0, min = 0.05, max = 1.0 },
  },
  compute = compute,
}
