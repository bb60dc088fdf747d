-- heuristic-kit.lua: the pieces the example heuristics are built from,
-- offered to every heuristic script as geoplan.kit (geoplan-lua(7),
-- "The heuristic kit").
--
-- A heuristic that builds pipelines from pools usually does the same
-- few things: rank the pools by speed, find for a chain of pools and a
-- (TP, recomputation) the fewest stages that hold the model, split the
-- layers by speed, spread the micro-batches over replicas, and write the
-- plan. This file does them once; scripts/fastest-first.lua and
-- scripts/one-dc-pipelines.lua differ only in which chains they try.
--
-- Memory is checked as geoplan's simulator counts it for 1F1B: per GPU,
-- the stage's parameters over TP times env.state (geoplan.state_bytes),
-- geoplan.reserve, and S - j + 1 micro-batches of activations in flight
-- on stage j of S (geoplan.layer_memory; the logits on the last). The
-- estimate of a shape is (micro-batches per replica + S - 1) x its
-- slowest stage's time (1F1B); activations crossing the network are left
-- out of it.
--
-- The kit runs in its own environment, with the same geoplan queries as
-- the script; like them, its functions answer only inside plan().

local kit = {}

kit.RECOMPUTE = { "none", "selective", "full" }

-- The pools of the scenario (of DC d only, when given), fastest first by
-- one layer's F + B + W at TP 1 (ties: in the scenario's order). Each
-- record: d, p, dc, gpu, order, count, free (= count), per_node, t1,
-- memory, price, reserve.
function kit.pools(sc, only)
  local list, order = {}, 0
  for d, dc in ipairs(sc.dcs) do
    for p, pool in ipairs(dc.pools) do
      order = order + 1
      if not only or d == only then
        local f, b, w = geoplan.layer_time(d, p, 1, "none")
        local gpu = sc.gpus[pool.gpu]
        list[#list + 1] = { d = d, p = p, dc = dc.name, gpu = pool.gpu, order = order,
          count = pool.count, free = pool.count, per_node = pool.per_node, t1 = f + b + w,
          memory = gpu.memory, price = gpu.price_per_hour, reserve = geoplan.reserve(d, p) }
      end
    end
  end
  table.sort(list, function(a, b)
    if a.t1 ~= b.t1 then return a.t1 < b.t1 end
    return a.order < b.order
  end)
  return list
end

-- The fields every function below reads, for scenario sc with the
-- optimizer state shared by `replicas` (geoplan.state_bytes): linked[a][b]
-- (a link joins DCs a and b, by index), ndcs, L, heads, M (micro-batches
-- per iteration), sizes (geoplan.sizes), state, grad_bytes (the model's
-- 16-bit gradients), budget (USD per hour; math.huge without one) and a
-- cache. A script adds its own fields.
function kit.env(sc, replicas)
  local index, linked = {}, {}
  for d, dc in ipairs(sc.dcs) do index[dc.name], linked[d] = d, {} end
  for _, l in ipairs(sc.links) do linked[index[l.from]][index[l.to]] = true end
  local sz = geoplan.sizes()
  return { linked = linked, ndcs = #sc.dcs, L = sc.model.layers, heads = sc.model.heads,
           M = math.floor(sc.job.global_batch / sc.job.micro_batch), cache = {},
           sizes = sz, state = geoplan.state_bytes(replicas or 1),
           grad_bytes = 2 * (sc.model.layers * sz.block_params + 2 * sz.embedding_params),
           budget = sc.budget and sc.budget.usd_per_hour or math.huge }
end

-- One layer's figures on pool record q at (tp, rc), cached in `cache`:
-- { t = seconds of F + B + W, act = bytes kept, lt, lact = the logits' };
-- nil when tp does not divide the heads.
function kit.costs(cache, q, tp, rc)
  local key = q.order * 4096 + tp * 4 + rc
  local c = cache[key]
  if c then return c end
  local r = kit.RECOMPUTE[rc]
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
function kit.split(L, t, e, rough)
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
    local c = kit.costs(env.cache, q, tp, rc)
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
  local c = kit.costs(env.cache, q, tp, rc)
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
    local c = kit.costs(env.cache, q, tp, rc)
    if not c then return nil end
    t[j], e[j] = c.t, j == S and c.lt or 0
  end
  local n = fits(env, stages, kit.split(env.L, t, e, true), tp, rc) and kit.split(env.L, t, e)
  if not (n and fits(env, stages, n, tp, rc)) then return nil end
  local worst, usd = 0, 0
  for j, q in ipairs(stages) do
    worst, usd = math.max(worst, n[j] * t[j] + e[j]), usd + tp * q.price
  end
  return { stages = stages, n = n, tp = tp, rc = rc, R = R, S = S, usd = usd,
           T = worst, est = (M / R + S - 1) * worst }
end

-- The shape for a chain of pools (a list of kit.pools records, filled
-- in its order) at (tp, rc, an index of kit.RECOMPUTE) with the fewest
-- stages that fit, or nil: { stages (a pool record per stage), n (layers
-- per stage), tp, rc, S, R (replicas the chain's free GPUs give, at most
-- M), usd (per hour of one replica), T (its slowest stage's seconds per
-- micro-batch), est }. Deeper pipelines need about as much memory per
-- GPU or less (fewer layers each, as many micro-batches' activations in
-- flight on the first stage), so the fewest is found by bisection
-- between the lower bound and the deepest pipeline one replica of the
-- chain can take.
function kit.shape(env, chain, tp, rc)
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

-- The best shape on `chain` over TP degrees (dividing the heads, within
-- the first pool's node) and recomputation, or nil; `adjust` (optional)
-- may change a shape or drop it (return nil) before it is compared.
function kit.best_on(env, chain, adjust)
  local first, best = chain[1], nil
  for tp = 1, first.per_node do
    if env.heads % tp == 0 then
      for rc = 1, #kit.RECOMPUTE do
        local s = kit.shape(env, chain, tp, rc)
        if s and adjust then s = adjust(s) end
        if s and (not best or s.est < best.est) then best = s end
      end
    end
  end
  return best
end

-- First and last layer of every stage of a shape (s.first, s.last).
function kit.bounds(s)
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
function kit.spread(shapes, M)
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

-- The plan's pipelines, after kit.bounds and kit.spread: per shape,
-- R - fewer replicas with m micro-batches and `fewer` with m - 1.
function kit.pipelines(shapes)
  local out = {}
  for _, s in ipairs(shapes) do
    local stages = {}
    for j, q in ipairs(s.stages) do
      stages[j] = { dc = q.dc, gpu = q.gpu, tp = s.tp, recompute = kit.RECOMPUTE[s.rc],
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

return kit
