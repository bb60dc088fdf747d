-- expect: links[1][2]: unknown DC "Fra" (did you mean "fra"? DCs: ams, fra)
return {
  dcs = {
    { name = "ams", pools = { { gpu = "H100", count = 16 } } },
    { name = "fra", pools = { { gpu = "A100-80", count = 16 } } },
  },
  links = { { "ams", "Fra", bandwidth = Gbps(100), latency = ms(4) } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
}
