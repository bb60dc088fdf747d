-- fragile-model.lua: a cost model that refuses GPUs of less than 50 GB,
-- for the log pane's golden screen (tests/tui.test.sh): an edit that
-- makes it fail is refused, and the log shows the error and where.
print("fragile model: loaded")

local function check(gpu)
  if gpu.memory < 50e9 then
    error("no GPU under 50 GB here (" .. gpu.name .. ")")
  end
end

return {
  efficiency = function(gpu, layer, ctx)
    check(gpu)
    return geoplan.default.efficiency(gpu, layer, ctx)
  end,
}
