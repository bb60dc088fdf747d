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
--     over the WAN (geoplan syncs the stages holding the same middle
--     layer over a ring through their DCs, in the scenario's order; a
--     ring between two DCs without a link is refused).
--  5. Spread the micro-batches over the replicas by speed. The plan's
--     schedule is 1F1B.
--
-- Memory is checked as geoplan's simulator counts it for 1F1B: per GPU,
-- the stage's parameters over TP times geoplan.state_bytes(1) (no ZeRO
-- sharing assumed, so the check holds whatever the replicas),
-- geoplan.reserve, and S - j + 1 micro-batches of activations in flight
-- on stage j of S (geoplan.layer_memory; the logits on the last).
-- Activations crossing the network are left out of the estimate: the
-- placement MILP started from this plan accounts for them.

local RECOMPUTE = { "none", "selective", "full" }

-- Every pool, fastest first (ties: in the scenario's order).
local function pools_by_speed(sc)
  local list = {}
  for d, dc in ipairs(sc.dcs) do
    for p, pool in ipairs(dc.pools) do
      local f, b, w = geoplan.layer_time(d, p, 1, "none")
      local gpu = sc.gpus[pool.gpu]
      list[#list + 1] = { d = d, p = p, dc = dc.name, gpu = pool.gpu, order = #list,
        count = pool.count, free = pool.count, per_node = pool.per_node, t1 = f + b + w,
        memory = gpu.memory, price = gpu.price_per_hour, reserve = geoplan.reserve(d, p) }
    end
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

-- The best shape on `chain`, over TP degrees and recomputation.
local function best_on(env, chain)
  local first, best = chain[1], nil
  for tp = 1, first.per_node do
    if env.heads % tp == 0 then
      for rc = 1, #RECOMPUTE do
        local s = within_budget(env, shape(env, chain, tp, rc))
        if s and (not best or s.est < best.est) then best = s end
      end
    end
  end
  return best
end

-- The best shape on `first` alone; a pool no shape has used yet that
-- cannot hold the model alone reaches out to the pools after it.
local function best_shape(env, first)
  local s = best_on(env, { first })
  if not s and first.free == first.count then s = best_on(env, chain_from(env, first)) end
  return s
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

-- The gradient rings: for every stage, the DCs (in the scenario's
-- order) of all stages holding its middle layer, as geoplan syncs them.
-- Nil when a ring has two neighbours without a link; else the seconds
-- of the slowest ring's step across the WAN: 2(k-1)/k of the model's
-- 16-bit gradients over each link of k DCs (geoplan.p2p_time).
local function rings(env, shapes)
  local worst = 0
  for _, a in ipairs(shapes) do
    for j = 1, a.S do
      local mid, dcs = (a.first[j] + a.last[j]) // 2, {}
      for _, b in ipairs(shapes) do
        for i = 1, b.S do
          if b.first[i] <= mid and mid <= b.last[i] then dcs[b.stages[i].d] = true end
        end
      end
      local ring = {}
      for d = 1, env.ndcs do if dcs[d] then ring[#ring + 1] = d end end
      local k = #ring
      for i = 1, k > 1 and k or 0 do
        local from, to = ring[i], ring[i % k + 1]
        if not env.linked[from][to] then return nil end
        worst = math.max(worst, geoplan.p2p_time(from, to, 2 * (k - 1) / k * env.grad_bytes))
      end
    end
  end
  return worst
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

-- The estimate of a set of shapes: compute as spread, plus the gradient
-- rings' WAN step; nil when a ring cannot close.
local function estimate(env, shapes)
  local sync = rings(env, shapes)
  return sync and spread(shapes, env.M) + sync
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
      bounds(s)
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

local function plan(sc, ctx)
  local M = math.floor(sc.job.global_batch / sc.job.micro_batch)
  local sz = geoplan.sizes()
  local env = { pools = pools_by_speed(sc), linked = link_table(sc), ndcs = #sc.dcs,
                L = sc.model.layers, heads = sc.model.heads, M = M, cache = {},
                sizes = sz, state = geoplan.state_bytes(1),
                grad_bytes = 2 * (sc.model.layers * sz.block_params + 2 * sz.embedding_params),
                budget = sc.budget and sc.budget.usd_per_hour or math.huge }
  local shapes = build(env)
  if #shapes == 0 then
    error(string.format("fastest-first: no pool holds a pipeline of %s in its memory%s,"
      .. " at any TP degree and stage count", sc.model.name,
      sc.budget and " within the budget" or ""), 0)
  end
  spread(shapes, M)
  return { schedule = "1f1b", pipelines = pipelines(shapes) }
end

return {
  name = "fastest-first",
  description = "pipelines on the fastest GPUs first, layers split by speed, DP as it fits",
  plan = plan,
}
