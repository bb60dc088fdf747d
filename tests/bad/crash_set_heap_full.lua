-- expect: crash_set_heap_full.lua: job.x: unknown field
-- args: --set "job.x=$(printf '%100000s' '' | tr ' ' y)"
-- (was: SIGABRT, a Lua panic: --set pushed strings unprotected into a full heap)
keep = {}
local n = 0
for _, sz in ipairs({16384, 1024, 64}) do
  pcall(function() while true do n = n + 1; keep[n] = string.rep("x", sz) .. n end end)
end
for i = 1, 1 do keep[i] = nil end
return {
  dcs = { { name = "a", pools = { { gpu = "H100", count = 8 } } } },
  model = "OPT-350M",
  job = { seq = 2048, global_batch = 8 },
}
