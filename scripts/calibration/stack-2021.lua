-- stack-2021.lua: a cost model that does not know today's training stack,
-- to calibrate (README.md here).
--
-- Its layer times are the default model's for the 2021 Megatron-LM
-- stack (geoplan-scenario(5), job): attention scores materialised, no
-- sequence parallelism, no tensor-parallel overlap, whatever stack the
-- scenario says. Pipeline sends overlap or not as the scenario says
-- (p2p_overlap is the simulator's, not the cost model's). Its memory is
-- the default's for the scenario's own stack, so a run that fits stays
-- fitting (no run here measured its peak memory).
-- The params are the time half of the default's calibratable form
-- (geoplan-lua(7), CALIBRATION): the H100's GEMM efficiency, an overhead
-- per pass of each block, and the share of the score work the stack
-- really does. At their defaults (the catalog's H100 efficiency, 0, 1)
-- it is the 2021 stack's default model.
--
--   geoplan calibrate RUN.lua... --cost-model stack-2021.lua -o fitted.lua

local k = geoplan.default.constants

-- The layer as the 2021 stack would run it.
local function as_2021(layer)
  local l = {}
  for key, v in pairs(layer) do l[key] = v end
  l.attention = "materialised"
  l.sequence_parallel = false
  l.tp_overlap = false
  return l
end

-- The memory-bound work over one layer's attention scores for one
-- micro-batch on one TP rank (as the calibratable form's).
local function scores(layer, gpu, ctx)
  return k.k_att * layer.micro_batch * layer.heads * layer.seq * layer.seq / ctx.tp
    / gpu.hbm_bandwidth
end

return {
  description = "the 2021 Megatron-LM stack's times, calibratable",
  params = {
    efficiency_H100 = { 0.6096, min = 0.05, max = 1 },
    layer_overhead = { 0, min = 0, max = 0.05 },
    attention_scores = { 1, min = 0, max = 1 },
  },
  efficiency = function(gpu, layer, ctx)
    if gpu.name == "H100" then return ctx.params.efficiency_H100 end
    return gpu.efficiency
  end,
  compute = function(layer, gpu, ctx)
    local f, b, w = geoplan.default.compute(as_2021(layer), gpu, ctx)
    if layer.kind ~= "block" then return f, b, w end
    local p = ctx.params
    local cut = (1 - p.attention_scores) * scores(layer, gpu, ctx)
    -- B does k_bwd times the score work, and recomputation (selective or
    -- full) the forward's again; W has none
    local again = ctx.recompute == "none" and 0 or cut
    local o = p.layer_overhead
    return f - cut + o, b - k.k_bwd * cut - again + o, w + o
  end,
}
