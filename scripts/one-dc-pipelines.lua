-- one-dc-pipelines.lua: a heuristic that keeps every pipeline inside one
-- DC, so no activation crosses the WAN, and runs data parallelism
-- across DCs.
--
-- Cutting a pipeline at a WAN link puts the link on every micro-batch's
-- path; keeping pipelines inside DCs leaves the WAN only the gradient
-- sync, once per iteration, which can overlap the backward pass (DT-FM,
-- Yuan et al., NeurIPS '22, and NVIDIA NeMo's multi-DC training both
-- place pipelines this way; see samples/p5.lua and samples/p6.lua).
--
--  1. Choose the DCs: every set of DCs whose gradient ring can close
--     (geoplan syncs the stages holding the same layers over a ring
--     through their DCs in the scenario's order, so neighbours need a
--     link), each set judged by its estimate below. (Above 10 DCs only
--     each DC alone and all of them are tried.)
--  2. In each chosen DC, pipelines go on its pools fastest first
--     (geoplan.layer_time): for every TP degree (dividing the heads,
--     within a node) and recomputation, the fewest stages that fit in
--     memory, as many replicas as the GPUs give, the shape with the
--     shortest (micro-batches per replica + stages - 1) x slowest
--     stage's time; a pool that cannot hold the model alone takes the
--     DC's next pools too. Then the GPUs left, the same way.
--  3. Layers are split by speed: the stages' times (the last one's
--     logits included) as equal as whole layers allow.
--  4. The micro-batches are spread over all replicas by speed, within
--     the budget when the scenario sets one (fastest replicas first);
--     every chosen DC must keep some, or the set is dropped.
--  5. The estimate: that spread's time plus the ring step of the
--     gradients across the WAN, 2(k-1)/k of the model's 16-bit
--     gradients over the slowest link of the ring of k DCs
--     (geoplan.p2p_time). The set with the shortest estimate wins.
--
-- The pieces (pools ranked by speed, the fewest stages that fit, the
-- split by speed, the spread of micro-batches, the memory check) are
-- geoplan.kit's (geoplan-lua(7)); this file chooses the DCs. Memory is
-- checked with the optimizer state over geoplan.state_bytes(k) (with
-- ZeRO-1, k DCs mean at least k replicas share it). When no set of DCs
-- can hold the model, plan() says so with error().

local kit = geoplan.kit

-- The fastest pool of a DC with GPUs left, and it with the DC's pools
-- after it that have some too.
local function next_chain(pools, dead)
  for i, q in ipairs(pools) do
    if q.free > 0 and not dead[q] then
      local chain = { q }
      for j = i + 1, #pools do
        if pools[j].free > 0 then chain[#chain + 1] = pools[j] end
      end
      return q, chain
    end
  end
end

-- The shapes of DC d when k DCs share the optimizer state: its fastest
-- pool first, each pool alone or (untouched and too small) with the
-- DC's pools after it, until no pipeline fits (at most 8).
local function dc_shapes(env, d, k)
  env.state = geoplan.state_bytes(k)
  local pools, shapes, dead = kit.pools(env.sc, d), {}, {}
  while #shapes < 8 do
    local first, chain = next_chain(pools, dead)
    if not first then break end
    local s = kit.best_on(env, { first })
    if not s and first.free == first.count and #chain > 1 then s = kit.best_on(env, chain) end
    if s then
      kit.bounds(s)
      for _, q in ipairs(s.stages) do q.free = q.free - s.R * s.tp end
      shapes[#shapes + 1] = s
    else
      dead[first] = true
    end
  end
  return shapes
end

-- Can the ring through the DCs of K (in the scenario's order) close?
local function ring_ok(env, K)
  for i = 1, #K > 1 and #K or 0 do
    if not env.linked[K[i]][K[i % #K + 1]] then return false end
  end
  return true
end

-- The ring step of the gradients across the WAN for the DCs of K.
local function sync(env, K)
  local k, worst = #K, 0
  for i = 1, k > 1 and k or 0 do
    local step = geoplan.p2p_time(K[i], K[i % k + 1], 2 * (k - 1) / k * env.grad_bytes)
    worst = math.max(worst, step)
  end
  return worst
end

-- The shapes of the DCs of K, with replicas within the budget (fastest
-- shapes first) and the micro-batches spread; nil unless every DC of K
-- keeps some. Returns the shapes and the estimate.
local function evaluate(env, K)
  local shapes = {}
  for _, d in ipairs(K) do
    env.by_k[#K] = env.by_k[#K] or {}
    local mine = env.by_k[#K][d] or dc_shapes(env, d, #K)
    env.by_k[#K][d] = mine
    if #mine == 0 then return nil end
    for _, s in ipairs(mine) do
      local c = {}
      for key, v in pairs(s) do c[key] = v end
      shapes[#shapes + 1] = c
    end
  end
  table.sort(shapes, function(a, b) return a.T < b.T end)
  local left, live = env.budget, {}
  for _, s in ipairs(shapes) do
    if s.usd > 0 then s.R = math.min(s.R, math.floor(left * (1 + 1e-9) / s.usd)) end
    left = left - s.R * s.usd
    if s.R > 0 then live[#live + 1] = s end
  end
  if #live == 0 then return nil end
  local T, busy = kit.spread(live, env.M), {}
  for _, s in ipairs(live) do
    if s.m > 1 or (s.m == 1 and s.fewer < s.R) then busy[s.stages[1].d] = true end
  end
  for _, d in ipairs(K) do if not busy[d] then return nil end end
  return live, T + sync(env, K)
end

-- The sets of DCs to try, each a list of indices in the scenario's order.
local function dc_sets(env)
  local sets, n = {}, env.ndcs
  if n > 10 then
    for d = 1, n do sets[#sets + 1] = { d } end
    local all = {}
    for d = 1, n do all[d] = d end
    sets[#sets + 1] = all
    return sets
  end
  for mask = 1, (1 << n) - 1 do
    local K = {}
    for d = 1, n do
      if mask & (1 << (d - 1)) ~= 0 then K[#K + 1] = d end
    end
    sets[#sets + 1] = K
  end
  return sets
end

local function plan(sc, ctx)
  local env = kit.env(sc, 1)
  env.sc, env.by_k = sc, {}
  local best, best_est
  for _, K in ipairs(dc_sets(env)) do
    if ring_ok(env, K) then
      local shapes, est = evaluate(env, K)
      if shapes and (not best or est < best_est) then best, best_est = shapes, est end
    end
  end
  if not best then
    error(string.format("one-dc-pipelines: no DC holds a pipeline of %s in its memory%s,"
      .. " at any TP degree and stage count, even with ZeRO-1 across DCs", sc.model.name,
      sc.budget and " within the budget" or ""), 0)
  end
  kit.spread(best, env.M)
  return { schedule = "1f1b", pipelines = kit.pipelines(best) }
end

return {
  name = "one-dc-pipelines",
  description = "every pipeline inside one DC, data parallelism across DCs",
  plan = plan,
}
