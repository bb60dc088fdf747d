-- profile-table.lua: a cost model read from a per-layer profile table.
--
-- Planners such as Sailor do not model a layer's time: they measure it,
-- per GPU type, tensor-parallel degree and micro-batch size, and look it
-- up. This script does the same with Sailor's own measurements of
-- OPT-350M (seq 2048) and falls back to geoplan's default model for
-- anything the table does not hold: another model or sequence length, a
-- GPU type, TP degree or micro-batch size Sailor did not profile, and
-- selective recomputation (Sailor profiled none; full recomputation is
-- the table's backward plus one more forward). Name it with
-- --cost-model, or see scripts/profile-table-sample.lua for a scenario
-- that uses it.
--
-- Source of every figure below: Sailor (F. Strati et al., "Sailor:
-- Automating Distributed Training over Dynamic, Heterogeneous, and
-- Geo-distributed Clusters", SOSP '25), repository eth-easl/sailor at
-- commit cf2c8e3 (github.com/eth-easl/sailor):
--  * times: sailor/Planner/sailor_planner/profiles/OPT-350/<GPU>/profile.json,
--    profile[micro_batch][tp][layer] = { forward, backward, update } in
--    seconds, layer 0 the embedding, 1-24 the blocks, 25 the output
--    layer. Sailor profiles two blocks and copies the second to blocks
--    2-24 (third_party/Megatron-DeepSpeed/profile.sh, --num-layers 2);
--    the table below takes that block (block 1 ran a little slower at
--    TP 1, e.g. A100-40 forward 2.786 against 2.314 ms) and layer 25 for
--    the logits. Sailor's "GH-96" is geoplan's GH200. Its A100-80 file is
--    rounded to 0.1 ms and has no update times. Sailor also profiled
--    RTX-2080, RTX-3090 and Titan-RTX, which geoplan's catalog lacks.
--  * memory: sailor/Planner/llm_info.json, "OPT-350"[tp][layer]
--    .act_mem_bytes, the activations one layer keeps for micro-batch 1
--    (the same for every GPU type); scaled here linearly with the
--    micro-batch, an assumption of this script.
--  * optimizer: update (the third figure) is the optimizer step of one
--    block's parameters on one GPU (Sailor's planner multiplies it by
--    the layers of a stage: sailor/Planner/sailor_planner/cpp_src/
--    planner_utils.cpp); per parameter it is update / 12,596,224 (a
--    block's params_floats at TP 1, llm_info.json).
-- The profiling command (third_party/Megatron-DeepSpeed/profile_all.py)
-- sets neither --fp16 nor --bf16 and its ds_config.json has no fp16
-- section, so these runs were presumably in fp32; the memory figures
-- count 4-byte floats. A scenario that says bf16 gets fp32 figures here.

-- ms per micro-batch: [gpu][tp][micro_batch] = { block forward, block
-- backward, logits forward, logits backward } (profile.json, layers 2
-- and 25). V100-16 at TP 1 ran out of memory at micro-batch 8.
local times = {
  ["A100-40"] = {
    [1] = { [1] = { 2.314, 5.909, 4.508, 3.989 }, [2] = { 4.169, 11.628, 8.14, 7.615 },
            [4] = { 8.204, 22.715, 16.123, 14.861 }, [8] = { 16.207, 44.958, 32.208, 29.778 } },
    [2] = { [1] = { 1.908, 3.398, 2.604, 2.319 }, [2] = { 2.624, 6.325, 4.538, 4.282 },
            [4] = { 4.744, 12.288, 8.236, 8.097 }, [8] = { 9.277, 23.888, 16.38, 15.521 } },
    [4] = { [1] = { 2.134, 2.278, 2.211, 2.078 }, [2] = { 2.394, 4.023, 2.918, 3.069 },
            [4] = { 3.001, 6.854, 4.449, 4.769 }, [8] = { 5.634, 13.383, 8.446, 8.591 } },
  },
  ["A100-80"] = {
    [1] = { [1] = { 2.7, 5.3, 3.9, 4.2 }, [2] = { 4.2, 10.2, 7.7, 7.9 },
            [4] = { 7.7, 20.1, 15.4, 15.8 }, [8] = { 14.2, 40.6, 30.6, 32.7 } },
    [2] = { [1] = { 2.1, 3.1, 2.3, 2.4 }, [2] = { 3.1, 5.8, 3.9, 4.5 },
            [4] = { 5.3, 11.4, 8, 8.7 }, [8] = { 9.4, 22.7, 15.5, 16.9 } },
    [4] = { [1] = { 1.8, 1.8, 1.8, 1.5 }, [2] = { 2.3, 3.4, 2.4, 2.6 },
            [4] = { 3.2, 6.1, 4.1, 4.7 }, [8] = { 5.2, 12, 8.2, 9 } },
  },
  ["GH200"] = {
    [1] = { [1] = { 1.225, 2.685, 2.068, 2.109 }, [2] = { 1.771, 5.212, 3.585, 3.832 },
            [4] = { 3.569, 10.343, 7.139, 7.662 }, [8] = { 6.988, 21.514, 14.852, 19.173 } },
    [2] = { [1] = { 1.435, 1.688, 1.531, 1.307 }, [2] = { 1.628, 3.123, 2.174, 2.209 },
            [4] = { 2.712, 6.083, 3.906, 4.244 }, [8] = { 4.942, 12.082, 7.479, 10.053 } },
    [4] = { [1] = { 2.381, 1.719, 2.405, 1.663 }, [2] = { 1.509, 1.846, 1.632, 1.493 },
            [4] = { 1.8, 3.32, 2.424, 2.579 }, [8] = { 2.683, 6.47, 4.014, 5.944 } },
  },
  ["V100-16"] = {
    [1] = { [1] = { 7.321, 17.195, 18.638, 30.124 }, [2] = { 14.086, 33.946, 36.702, 59.358 },
            [4] = { 28.839, 71.714, 74.796, 122.149 } },
    [2] = { [1] = { 4.224, 9.51, 9.378, 15.446 }, [2] = { 8.285, 18.651, 19.21, 31.325 },
            [4] = { 16.014, 35.784, 37.029, 60.235 }, [8] = { 30.993, 75.162, 75.15, 129.319 } },
    [4] = { [1] = { 2.968, 5.963, 4.787, 8.25 }, [2] = { 5.193, 10.241, 9.58, 16.181 },
            [4] = { 9.555, 19.837, 18.957, 31.639 }, [8] = { 19.003, 39.492, 37.792, 63.49 } },
    [8] = { [1] = { 2.208, 3.482, 2.821, 4.51 }, [2] = { 3.195, 6.325, 4.913, 8.403 },
            [4] = { 5.284, 10.685, 9.594, 16.233 }, [8] = { 10.317, 21.209, 19.894, 33.653 } },
  },
}

-- Bytes kept per layer for micro-batch 1: [tp] = { block, logits }
-- (llm_info.json, layers 2 and 25).
local act_bytes = {
  [1] = { 360726528, 834694144 },
  [2] = { 192954368, 423652352 },
  [4] = { 109068288, 218131456 },
  [8] = { 67125248, 113273856 },
}

-- Seconds of one optimizer step per parameter on one GPU: update at TP 1
-- over a block's 12,596,224 parameters (A100-80: not measured). Adam's
-- cost per parameter hardly depends on the model, so it applies to any.
local update_per_param = {
  ["A100-40"] = 2.938e-3 / 12596224,
  ["GH200"] = 1.337e-3 / 12596224,
  ["V100-16"] = 4.854e-3 / 12596224,
}

-- Is this Sailor's OPT-350M at the sequence length it profiled? Checked
-- by shape, so a scenario's own name for the model does not matter.
local function profiled(l)
  return l.layers == 24 and l.hidden == 1024 and l.heads == 16 and l.ffn == 4096 and
    l.vocab == 50272 and not l.gated and l.seq == 2048
end

-- The table's row for this call, or nil: Sailor ran no recomputation.
local function row(l, gpu, ctx)
  if not profiled(l) or ctx.recompute == "selective" then return nil end
  local by_tp = times[gpu.name] and times[gpu.name][ctx.tp]
  return by_tp and by_tp[l.micro_batch]
end

local function compute(l, gpu, ctx)
  local r = row(l, gpu, ctx)
  if not r then return geoplan.default.compute(l, gpu, ctx) end
  local f, b = r[1], r[2]
  if l.kind == "logits" then f, b = r[3], r[4] end
  -- Full recomputation runs the forward again inside the backward.
  if ctx.recompute == "full" and l.kind == "block" then b = b + f end
  return f * 1e-3, b * 1e-3
end

-- The same for every GPU type, so any GPU gets it.
local function memory(l, gpu, ctx)
  local m = act_bytes[ctx.tp]
  if not m or not profiled(l) or ctx.recompute ~= "none" then
    return geoplan.default.memory(l, gpu, ctx)
  end
  return (l.kind == "logits" and m[2] or m[1]) * l.micro_batch
end

return {
  description = "Sailor's measured OPT-350M layer times (SOSP '25), the default elsewhere",
  compute = compute,
  memory = memory,
  optimizer = function(gpu, n, ctx)
    local k = update_per_param[gpu.name]
    if not k then return geoplan.default.optimizer(gpu, n, ctx) end
    return n * k
  end,
}
