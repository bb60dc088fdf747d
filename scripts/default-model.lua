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

-- Megatron's TP all-reduces: NVLink inside a node, the NICs beyond.
local function tp_allreduce(ctx, bytes)
  local tp, pool = ctx.tp, ctx.pool
  if tp <= 1 then return 0 end
  if tp <= pool.per_node then
    return ring(bytes, tp, pool.nvlink * k.eta_nvlink, k.ring_step)
  end
  local bw = math.min(pool.nvlink * k.eta_nvlink, pool.network * k.eta_net * pool.per_node)
  return ring(bytes, tp, bw, pool.latency)
end

-- One TP rank's compute: GEMMs at a size-dependent efficiency plus the
-- memory-bound elementwise work; also the attention core's share.
local function block_compute(l, gpu, ctx)
  local b, s, t, h = l.micro_batch, l.seq, ctx.tp, l.hidden
  local eff = gpu.efficiency / (1 + k.gemm_x0 / (h / t) + k.gemm_y0 / (b * s))
  local rate = gpu.tflops * eff * t
  local attn_fl = 4 * b * s * s * h
  local gemm = (block_flops(l) - attn_fl) / rate
  local att_mem = k.k_att * b * l.heads * s * s / t / gpu.hbm_bandwidth
  local mem = (k.k_rep * b * s * h + 4 * b * s * l.ffn / t) / gpu.hbm_bandwidth
  local core = attn_fl / rate + att_mem
  return gemm + mem + core, core
end

local function compute(l, gpu, ctx)
  local b, s = l.micro_batch, l.seq
  if l.kind == "logits" then
    local f = 2 * b * s * l.hidden * l.vocab / (gpu.tflops * gpu.efficiency * ctx.tp)
    return f, f, f
  end
  local c, core = block_compute(l, gpu, ctx)
  local ar = tp_allreduce(ctx, 2 * b * s * l.hidden)
  local f = c + 2 * ar
  local re = 0
  if ctx.recompute == "full" then re = f elseif ctx.recompute == "selective" then re = core end
  return f, c + 2 * ar + re, c
end

-- Stored activations (Korthikanti et al., MLSys '23) and what W keeps.
local function memory(l, gpu, ctx)
  local b, s, tp = l.micro_batch, l.seq, ctx.tp
  if l.kind == "logits" then return 4 * b * s * l.vocab / tp, 0 end
  local h, a = l.hidden, l.heads
  local act
  if ctx.recompute == "full" then act = 2 * s * b * h
  elseif ctx.recompute == "selective" then act = 34 * s * b * h / tp
  else act = s * b * h * (34 + 5 * a * s / h) / tp end
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
  reserve = function(gpu, ctx) return 0 end,
}
