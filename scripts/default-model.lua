-- default-model.lua: geoplan's default cost model written again in Lua.
--
-- Named with --cost-model, it gives the same plans and times as no
-- script at all (the tests check this on every sample): a starting
-- point for a model of your own, and the reference of what the default
-- computes. The formulas and their sources are in geoplan-lua(7) and
-- geoplan-scenario(5); the fitted constants come from the C model
-- (geoplan.default.constants), so this file cannot drift from it.
--
-- Every operation computes in the same order as the C code, so the
-- doubles come out bit for bit the same.

local k = geoplan.default.constants

-- Forward FLOPs of one block for one micro-batch (Narayanan et al.,
-- SC '21, with GQA and gated MLPs).
local function block_flops(l)
  local h, g = l.hidden, l.gated and 3 or 2
  local b, s = l.micro_batch, l.seq
  local qkv = 2 * b * s * h * (h + 2 * h * l.kv_heads / l.heads)
  local out = 2 * b * s * h * h
  local attn = 4 * b * s * s * h
  local mlp = 2 * b * s * h * l.ffn * g
  return qkv + out + attn + mlp
end

-- Ring all-reduce of `bytes` over p ranks (Patarasuk and Yuan, 2009).
local function ring(bytes, p, bw, lat)
  if p <= 1 then return 0 end
  return 2 * (p - 1) * lat + 2.0 * (p - 1) / p * bytes / bw
end

-- A pass's TP collectives: two all-reduces (or with sequence parallelism
-- all-gathers and reduce-scatters of the same bytes); NVLink inside a
-- node, the NICs beyond.
local function tp_comm(ctx, bytes)
  local tp, pool = ctx.tp, ctx.pool
  if tp <= 1 then return 0 end
  if tp <= pool.per_node then
    return 2 * ring(bytes, tp, pool.nvlink * k.eta_nvlink, k.ring_step)
  end
  local bw = math.min(pool.nvlink * k.eta_nvlink, pool.network * k.eta_net * pool.per_node)
  return 2 * ring(bytes, tp, bw, pool.latency)
end

-- What stays exposed: overlapped collectives hide behind the GEMMs;
-- without, sequence parallelism hides the backward's all-gathers.
local function tp_exposed(l, comm, gemm, wcol, bwd)
  if not l.sequence_parallel then
    if bwd then return math.max(0, comm - wcol) + k.tp_ov * comm end
    return comm
  end
  if not l.tp_overlap then
    if bwd then return comm / 2 end
    return comm
  end
  return math.max(0, comm - gemm) + k.tp_ov * comm
end

-- GEMM FLOP/s of the TP group, derated for small GEMMs; FP8 at its peak.
local function gemm_rate(l, gpu, ctx, fp8)
  local t = ctx.tp
  local eff = gpu.efficiency / (1 + k.gemm_x0 / (l.hidden / t) + k.gemm_y0 / (l.micro_batch * l.seq))
  local peak = gpu.tflops
  if fp8 and gpu.fp8_tflops > 0 then peak = gpu.fp8_tflops * k.fp8_eff end
  return peak * eff * t
end

-- The attention core: materialised scores (GEMMs and their elementwise
-- work), or flash attention on the causal half.
local function attention_core(l, gpu, ctx)
  local b, s, h, t = l.micro_batch, l.seq, l.hidden, ctx.tp
  local fl = 4 * b * s * s * h
  if l.attention == "flash" then
    local f = fl / 2 / (gpu.tflops * gpu.efficiency * k.flash_eff * t)
    return f, k.flash_bwd * f
  end
  local gemm = fl / gemm_rate(l, gpu, ctx, false)
  local mem = k.k_att * b * l.heads * s * s / t / gpu.hbm_bandwidth
  return gemm + mem, 2 * gemm + k.k_bwd * mem
end

-- One GPU's times, the mean's: geoplan itself takes every layer, a
-- script's as the built-in model's, at the pace of the slowest of the n
-- GPUs a plan uses of a pool, 1 + jitter sqrt(2 ln n) (Sinha et al.,
-- SC '22, on the spread).

local function compute(l, gpu, ctx)
  local b, s, h, t = l.micro_batch, l.seq, l.hidden, ctx.tp
  if l.kind == "logits" then
    local f = 2 * b * s * h * l.vocab / (gpu.tflops * gpu.efficiency * t)
    local ce = k.ce_bytes * b * s * l.vocab / t / gpu.hbm_bandwidth
    local cf, cb = ce, ce
    -- Unfused (Megatron-LM's default): the bytes of cross_entropy.py's
    -- separate operations on top, 38 a logit forward, 14 backward.
    if l.cross_entropy == "unfused" then
      cf = cf + k.ce_unfused_f * b * s * l.vocab / t / gpu.hbm_bandwidth
      cb = cb + k.ce_unfused_b * b * s * l.vocab / t / gpu.hbm_bandwidth
    end
    return f + cf, f + cb, f
  end
  local g = l.gated and 3 or 2
  local attn_fl = 4 * b * s * s * h
  local rate = gemm_rate(l, gpu, ctx, l.precision == "fp8")
  local gemm = (block_flops(l) - attn_fl) / rate
  local wcol = 2 * b * s * h * (h + 2 * h * l.kv_heads / l.heads + l.ffn * (g - 1)) / rate
  local core_f, core_b = attention_core(l, gpu, ctx)
  local rep = l.sequence_parallel and t or 1
  local mem_f = (k.k_rep * b * s * h / rep + 2 * g * b * s * l.ffn / t) / gpu.hbm_bandwidth
  -- FP8: every GEMM input cast to one byte (and transposed) first.
  if l.precision == "fp8" and gpu.fp8_tflops > 0 then
    mem_f = mem_f + k.k_fp8 * b * s * (2 * h / rep + h / t + l.ffn / t) / gpu.hbm_bandwidth
  end
  local comm = tp_comm(ctx, 2 * b * s * h)
  local f = gemm + core_f + mem_f + tp_exposed(l, comm, gemm, wcol, false)
  local re = 0
  if ctx.recompute == "full" then re = f elseif ctx.recompute == "selective" then re = core_f end
  return f, gemm + core_b + k.k_bwd * mem_f + tp_exposed(l, comm, gemm, wcol, true) + re, gemm
end

-- Stored activations (Korthikanti et al., MLSys '23, generalised to GQA
-- and gated MLPs; no scores with flash attention) and what W keeps.
local function memory(l, gpu, ctx)
  local b, s, tp = l.micro_batch, l.seq, ctx.tp
  if l.kind == "logits" then return 4 * b * s * l.vocab / tp, 0 end
  local h, a, g = l.hidden, l.heads, l.gated and 3 or 2
  local rep = l.sequence_parallel and tp or 1
  local act
  if ctx.recompute == "full" then
    act = 2 * s * b * h / rep
  else
    local split = 4 + 4 * l.kv_heads / a + 2 * l.ffn * (g - 1) / h + 2 * l.ffn / h
    local outside = 10
    if l.precision == "fp8" then
      outside = outside - 2
      split = split - l.ffn / h
    end
    act = s * b * h * (outside / rep + split / tp)
    if l.attention == "materialised" and ctx.recompute ~= "selective" then
      act = act + 5 * a * s * s * b / tp
    end
  end
  local wact = (6 * s * b * h + 2 * s * b * l.ffn) / tp
  if wact > act then wact = act end
  return act, wact
end

return {
  description = "the default cost model, in Lua",
  compute = compute,
  memory = memory,
  p2p = function(ch, ctx)
    local eta = ch.kind == "nic" and k.eta_net or ch.kind == "nvlink" and k.eta_nvlink or 1
    return { latency = ch.latency, bandwidth = ch.bandwidth * eta }
  end,
  allreduce = function(ch, ctx)
    if ch.kind == "nvlink" then return { latency = k.ring_step, bandwidth = ch.bandwidth * k.eta_nvlink } end
    if ch.kind == "nic" then return { latency = ch.latency, bandwidth = ch.bandwidth * k.eta_net } end
    return { latency = ch.latency, bandwidth = ch.bandwidth }
  end,
  optimizer = function(gpu, n, ctx) return n * k.opt_bytes / gpu.hbm_bandwidth end,
  reserve = function(gpu, ctx) return k.reserve + k.frag * gpu.memory end,
}
