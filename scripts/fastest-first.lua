-- fastest-first.lua: a heuristic that puts pipelines on the fastest GPUs
-- first, splits their layers by speed and adds as many data-parallel
-- replicas as fit.
--
-- The rule of thumb many clusters are planned by, written out:
--  1. Rank the pools by one layer's time at TP 1 (forward + backward,
--     geoplan.layer_time), fastest first.
--  2. A pipeline goes on the fastest pool with GPUs left. For every TP
--     degree (dividing the heads, within a node) and recomputation it
--     takes the fewest stages that fit in memory and as many replicas as
--     the GPUs (and the budget, when the scenario sets one) give, and
--     keeps the shape with the shortest estimate, (micro-batches per
--     replica + stages - 1) x the slowest stage's time (1F1B). A pool
--     that cannot hold the model alone goes on to the next fastest pools
--     it can reach (the same DC, or a WAN link from the DC before).
--  3. Layers are split by speed: each stage gets the layers that make
--     the stages' times (its layers' and, on the last, the logits')
--     as equal as whole layers allow.
--  4. Repeat with the GPUs left, fastest pools first, keeping a shape
--     only if it shortens the whole plan's estimate: the micro-batches
--     spread over every replica by speed, plus the gradients' ring step
--     over the WAN (geoplan syncs each layer's gradients over a ring
--     through the DCs of the stages holding it, in the scenario's order;
--     a ring between two DCs without a link is refused).
--  5. Spread the micro-batches over the replicas by speed. The plan's
--     schedule is 1F1B.
--
-- The pieces (pools ranked by speed, the fewest stages that fit, the
-- split by speed, the spread of micro-batches, the memory check) are
-- geoplan.kit's (geoplan-lua(7)); this file chooses the chains. Memory
-- is checked with no ZeRO sharing (geoplan.state_bytes(1)), so the check
-- holds whatever the replicas.

local kit = geoplan.kit

-- The chain from the fastest pool with GPUs left: it and the pools it
-- can reach, fastest first.
local function chain_from(env, first)
  local chain = { first }
  for _, q in ipairs(env.pools) do
    local last = chain[#chain]
    if q ~= first and q.free > 0 and (q.d == last.d or env.linked[last.d][q.d]) then
      chain[#chain + 1] = q
    end
  end
  return chain
end

-- Fewer replicas within the budget (the same stages still fit); nil
-- when not one is affordable.
local function within_budget(env, s)
  if s and s.usd > 0 then
    s.R = math.min(s.R, math.floor(env.budget * (1 + 1e-9) / s.usd))
    s.est = (env.M / s.R + s.S - 1) * s.T
  end
  return s and s.R >= 1 and s or nil
end

-- The best shape on `first` alone; a pool no shape has used yet that
-- cannot hold the model alone reaches out to the pools after it.
local function best_shape(env, first)
  local function fit(s) return within_budget(env, s) end
  local s = kit.best_on(env, { first }, fit)
  if not s and first.free == first.count then s = kit.best_on(env, chain_from(env, first), fit) end
  return s
end

-- The gradient rings: for every layer, the DCs (in the scenario's
-- order) of the stages holding it, as geoplan syncs them. Nil when a
-- ring has two neighbours without a link; else the seconds of the
-- busiest link direction's share: 2(k-1)/k of each layer's 16-bit
-- gradients on every edge of its ring of k DCs (geoplan.p2p_time).
local function rings(env, shapes)
  local load, per_layer = {}, env.grad_bytes / env.L
  for l = 1, env.L do
    local dcs, ring = {}, {}
    for _, s in ipairs(shapes) do
      for i = 1, s.S do
        if s.first[i] <= l and l <= s.last[i] then dcs[s.stages[i].d] = true break end
      end
    end
    for d = 1, env.ndcs do if dcs[d] then ring[#ring + 1] = d end end
    local k = #ring
    for i = 1, k > 1 and k or 0 do
      local from, to = ring[i], ring[i % k + 1]
      if not env.linked[from][to] then return nil end
      local key = from * 4096 + to
      load[key] = (load[key] or 0) + 2 * (k - 1) / k * per_layer
    end
  end
  local worst = 0
  for key, bytes in pairs(load) do
    worst = math.max(worst, geoplan.p2p_time(key // 4096, key % 4096, bytes))
  end
  return worst
end

-- The estimate of a set of shapes: compute as spread, plus the gradient
-- rings' WAN step; nil when a ring cannot close.
local function estimate(env, shapes)
  local sync = rings(env, shapes)
  return sync and kit.spread(shapes, env.M) + sync
end

-- Shapes, fastest pools first, each kept if it shortens the estimate
-- (at most 16).
local function build(env)
  local shapes, dead, best = {}, {}, math.huge
  while #shapes < 16 do
    local first
    for _, q in ipairs(env.pools) do
      if q.free > 0 and not dead[q] then first = q break end
    end
    if not first then break end
    local s = best_shape(env, first)
    if s then
      kit.bounds(s)
      shapes[#shapes + 1] = s
      local est = estimate(env, shapes)
      if est and est < best * (1 - 1e-9) then
        best = est
        for _, q in ipairs(s.stages) do q.free = q.free - s.R * s.tp end
        env.budget = env.budget - s.R * s.usd
      else
        shapes[#shapes], dead[first] = nil, true
      end
    else
      dead[first] = true
    end
  end
  return shapes
end

local function plan(sc, ctx)
  local env = kit.env(sc, 1)
  env.pools = kit.pools(sc)
  local shapes = build(env)
  if #shapes == 0 then
    error(string.format("fastest-first: no pool holds a pipeline of %s in its memory%s,"
      .. " at any TP degree and stage count", sc.model.name,
      sc.budget and " within the budget" or ""), 0)
  end
  kit.spread(shapes, env.M)
  return { schedule = "1f1b", pipelines = kit.pipelines(shapes) }
end

return {
  name = "fastest-first",
  description = "pipelines on the fastest GPUs first, layers split by speed, DP as it fits",
  plan = plan,
}
