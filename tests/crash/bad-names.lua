-- DC and scenario names with a control byte, markup, quotes, a comma, a
-- newline and bytes that are not UTF-8: every output must stay well formed.
return {
  name = "bad\1name<&>\255",
  dcs = {
    { name = "am\1s,\"x\"\n<y>&\255\254", pools = { { gpu = "H100", count = 8 } } },
    { name = "fr\226\130a'b", pools = { { gpu = "H100", count = 8 } } },
  },
  links = { { "am\1s,\"x\"\n<y>&\255\254", "fr\226\130a'b", bandwidth = Gbps(100), latency = ms(5) } },
  model = "GPT-3-XL",
  job = { seq = 4096, global_batch = 16 },
  plan = { pipelines = { { micro_batches = 16, stages = {
    { dc = "am\1s,\"x\"\n<y>&\255\254", layers = { 1, 12 } },
    { dc = "fr\226\130a'b", layers = { 13, 24 } } } } } },
}
