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
-- Memory is checked as geoplan's simulator counts it for 1F1B: per GPU,
-- the stage's parameters over TP times geoplan.state_bytes(k) (with
-- ZeRO-1, k DCs mean at least k replicas share the optimizer state),
-- geoplan.reserve, and S - j + 1 micro-batches of activations in flight
-- on stage j of S (geoplan.layer_memory; the logits on the last). When
-- no set of DCs can hold the model, plan() says so with error().

local RECOMPUTE = { "none", "selective", "full" }

-- The pools of DC d, fastest first (ties: in the scenario's order).
local function pools_of(sc, d)
  local list = {}
  for p, pool in ipairs(sc.dcs[d].pools) do
    local f, b, w = geoplan.layer_time(d, p, 1, "none")
    local gpu = sc.gpus[pool.gpu]
    list[#list + 1] = { d = d, p = p, dc = sc.dcs[d].name, gpu = pool.gpu, order = d * 64 + p,
      count = pool.count, free = pool.count, per_node = pool.per_node, t1 = f + b + w,
      memory = gpu.memory, price = gpu.price_per_hour, reserve = geoplan.reserve(d, p) }
  end
  table.sort(list, function(a, b)
    if a.t1 ~= b.t1 then return a.t1 < b.t1 end
    return a.order < b.order
  end)
  return list
end

-- Which DC pairs a link joins, by index.
local function link_table(sc)
  local index, linked = {}, {}
  for d, dc in ipairs(sc.dcs) do index[dc.name], linked[d] = d, {} end
  for _, l in ipairs(sc.links) do linked[index[l.from]][index[l.to]] = true end
  return linked
end

-- One layer's figures on a pool at (tp, recompute), cached: seconds of
-- F + B + W, bytes kept, and the logits' seconds and bytes.
local function costs(cache, q, tp, rc)
  local key = q.order * 4096 + tp * 4 + rc
  local c = cache[key]
  if c then return c end
  local r = RECOMPUTE[rc]
  local f, b, w = geoplan.layer_time(q.d, q.p, tp, r)
  if not f then return nil end
  local lf, lb, lw = geoplan.layer_time(q.d, q.p, tp, r, "logits")
  c = { t = f + b + w, act = geoplan.layer_memory(q.d, q.p, tp, r),
        lt = lf + lb + lw, lact = geoplan.layer_memory(q.d, q.p, tp, r, "logits") }
  cache[key] = c
  return c
end

-- Layers per stage: the fewest seconds T at which stage j's n_j layers
-- (n_j t_j + e_j <= T, at least one each) add up to L; then the stages
-- that finish last give back what is over. `rough`: the counts at T's
-- lower bound (a stage has at most as many), a cheap first look.
local function split(L, t, e, rough)
  local S = #t
  local function counts(T)
    local n, sum = {}, 0
    for j = 1, S do
      n[j] = math.max(1, math.floor((T - e[j]) / t[j]))
      sum = sum + n[j]
    end
    return n, sum
  end
  -- T is at least the work spread by speed, at most that plus one
  -- layer and the logits on every stage.
  local rate, tmax, emax = 0, 0, 0
  for j = 1, S do
    rate, tmax, emax = rate + 1 / t[j], math.max(tmax, t[j]), math.max(emax, e[j])
  end
  local lo = L / rate
  local hi = lo + tmax + emax
  if rough then return (counts(lo)) end
  for _ = 1, 24 do
    local mid = (lo + hi) / 2
    if select(2, counts(mid)) >= L then hi = mid else lo = mid end
  end
  local n, sum = counts(hi)
  while sum > L do
    local worst
    for j = 1, S do
      if n[j] > 1 and (not worst or n[j] * t[j] + e[j] > n[worst] * t[worst] + e[worst]) then
        worst = j
      end
    end
    n[worst], sum = n[worst] - 1, sum - 1
  end
  return n
end

-- Stages of one replica over the chain: filled in the chain's order
-- (fastest first), each pool holding at most its free GPUs / (R tp).
local function place(chain, tp, S, R)
  local stages, left = {}, S
  for _, q in ipairs(chain) do
    local fit = tp <= q.per_node and q.free // (R * tp) or 0
    for _ = 1, math.min(fit, left) do stages[#stages + 1] = q end
    left = left - math.min(fit, left)
  end
  return left == 0 and stages or nil
end

-- Does stage j of `stages` hold its layers? (The comment at the top.)
local function fits(env, stages, n, tp, rc)
  local S, sz = #stages, env.sizes
  for j, q in ipairs(stages) do
    local c = costs(env.cache, q, tp, rc)
    local params = n[j] * sz.block_params
    local act = n[j] * c.act
    if j == 1 then params = params + sz.embedding_params end
    if j == S then params, act = params + sz.embedding_params, act + c.lact end
    local need = params / tp * env.state + q.reserve + (S - j + 1) * act
    if need > q.memory then return false end
  end
  return true
end

-- The fewest stages worth trying: the model's state must fit in the
-- chain's GPUs, and the first stage must hold the embedding and a layer.
local function fewest(env, chain, tp, rc)
  local sz, room, q = env.sizes, 0, chain[1]
  for _, c in ipairs(chain) do room = math.max(room, c.memory - c.reserve) end
  local state = (env.L * sz.block_params + 2 * sz.embedding_params) * env.state
  local c = costs(env.cache, q, tp, rc)
  local one = (sz.block_params + sz.embedding_params) / tp * env.state + q.reserve
  if not c or one + c.act > q.memory then return nil end
  return math.max(1, math.ceil(state / (tp * room)))
end

-- The shape of S stages for (chain, tp, rc), or nil when it does not
-- fit: as many replicas as the chain's GPUs give, layers split by speed.
local function try(env, chain, tp, rc, S)
  local total, M = 0, env.M
  for _, q in ipairs(chain) do total = total + q.free end
  local R, stages = math.min(M, chain[1].free // tp, total // (S * tp)), nil
  while R >= 1 do
    stages = place(chain, tp, S, R)
    if stages then break end
    R = R - 1
  end
  if R < 1 then return nil end
  local t, e = {}, {}
  for j, q in ipairs(stages) do
    local c = costs(env.cache, q, tp, rc)
    if not c then return nil end
    t[j], e[j] = c.t, j == S and c.lt or 0
  end
  local n = fits(env, stages, split(env.L, t, e, true), tp, rc) and split(env.L, t, e)
  if not (n and fits(env, stages, n, tp, rc)) then return nil end
  local worst, usd = 0, 0
  for j, q in ipairs(stages) do
    worst, usd = math.max(worst, n[j] * t[j] + e[j]), usd + tp * q.price
  end
  return { stages = stages, n = n, tp = tp, rc = rc, R = R, S = S, usd = usd,
           T = worst, est = (M / R + S - 1) * worst }
end

-- The shape for (chain, tp, rc) with the fewest stages that fit, or nil.
-- Deeper pipelines need about as much memory per GPU or less (fewer
-- layers each, as many micro-batches' activations in flight on the
-- first stage), so the
-- fewest is found by bisection between the lower bound and the deepest
-- pipeline one replica of the chain can take.
local function shape(env, chain, tp, rc)
  local lo = fewest(env, chain, tp, rc)
  local cap = 0
  for _, q in ipairs(chain) do
    if tp <= q.per_node then cap = cap + q.free // tp end
  end
  local hi = math.min(env.L, cap)
  if not lo or lo > hi then return nil end
  local best = try(env, chain, tp, rc, hi)
  lo = lo - 1
  while best and hi - lo > 1 do
    local mid = (lo + hi) // 2
    local s = try(env, chain, tp, rc, mid)
    if s then hi, best = mid, s else lo = mid end
  end
  return best
end

-- The best shape on `chain`, over TP degrees and recomputation.
local function best_on(env, chain)
  local first, best = chain[1], nil
  for tp = 1, first.per_node do
    if env.heads % tp == 0 then
      for rc = 1, #RECOMPUTE do
        local s = shape(env, chain, tp, rc)
        if s and (not best or s.est < best.est) then best = s end
      end
    end
  end
  return best
end

-- First and last layer of every stage of a shape.
local function bounds(s)
  s.first, s.last = {}, {}
  local next = 1
  for j = 1, s.S do
    s.first[j], s.last[j] = next, next + s.n[j] - 1
    next = next + s.n[j]
  end
end

-- Micro-batches per replica: the shortest T at which (m + S - 1) x T_s
-- <= T gives every shape's replicas m that add up to M; then what is
-- over comes off the replicas that finish last. Returns T.
local function spread(shapes, M)
  local function count(T)
    local sum = 0
    for _, s in ipairs(shapes) do
      s.m = math.max(0, math.floor(T / s.T) - s.S + 1)
      sum = sum + s.m * s.R
    end
    return sum
  end
  local lo, hi = 0, 0
  for _, s in ipairs(shapes) do hi = math.max(hi, (M + s.S) * s.T) end
  for _ = 1, 60 do
    local mid = (lo + hi) / 2
    if count(mid) >= M then hi = mid else lo = mid end
  end
  local over, order = count(hi) - M, {}
  for i, s in ipairs(shapes) do order[i] = s end
  table.sort(order, function(a, b) return (a.m + a.S - 1) * a.T > (b.m + b.S - 1) * b.T end)
  for _, s in ipairs(order) do
    s.fewer = math.min(over, s.m > 0 and s.R or 0)
    over = over - s.fewer
  end
  return hi
end

-- The plan's pipelines: per shape, R - fewer replicas with m micro-
-- batches and `fewer` with m - 1.
local function pipelines(shapes)
  local out = {}
  for _, s in ipairs(shapes) do
    local stages = {}
    for j, q in ipairs(s.stages) do
      stages[j] = { dc = q.dc, gpu = q.gpu, tp = s.tp, recompute = RECOMPUTE[s.rc],
                    layers = { s.first[j], s.last[j] } }
    end
    for _, e in ipairs({ { s.R - s.fewer, s.m }, { s.fewer, s.m - 1 } }) do
      if e[1] > 0 and e[2] > 0 then
        out[#out + 1] = { replicas = e[1], micro_batches = e[2], stages = stages }
      end
    end
  end
  return out
end

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
  local pools, shapes, dead = pools_of(env.sc, d), {}, {}
  while #shapes < 8 do
    local first, chain = next_chain(pools, dead)
    if not first then break end
    local s = best_on(env, { first })
    if not s and first.free == first.count and #chain > 1 then s = best_on(env, chain) end
    if s then
      bounds(s)
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
  local T, busy = spread(live, env.M), {}
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
  local sz = geoplan.sizes()
  local env = { sc = sc, linked = link_table(sc), ndcs = #sc.dcs, L = sc.model.layers,
                heads = sc.model.heads, cache = {}, sizes = sz, by_k = {},
                M = math.floor(sc.job.global_batch / sc.job.micro_batch),
                grad_bytes = 2 * (sc.model.layers * sz.block_params + 2 * sz.embedding_params),
                budget = sc.budget and sc.budget.usd_per_hour or math.huge }
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
  spread(best, env.M)
  return { schedule = "1f1b", pipelines = pipelines(best) }
end

return {
  name = "one-dc-pipelines",
  description = "every pipeline inside one DC, data parallelism across DCs",
  plan = plan,
}
