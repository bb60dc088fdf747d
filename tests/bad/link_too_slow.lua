-- expect: link ams -> fra: bandwidth 1e-310 B/s and latency 0.004 s are out of range (at least 1 kB/s, at most an hour)
return {
  dcs = {
    { name = "ams", pools = { { gpu = "H100", count = 16 } } },
    { name = "fra", pools = { { gpu = "A100-80", count = 16 } } },
  },
  links = { { "ams", "fra", bandwidth = 1e-310, latency = ms(4) } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
}
