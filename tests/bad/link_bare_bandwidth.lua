-- expect: link ams -> fra: bandwidth 40 B/s is less than 1 kB/s (a bare number is bytes/s): write Gbps(40) for 40 Gbit/s
return {
  dcs = {
    { name = "ams", pools = { { gpu = "H100", count = 16 } } },
    { name = "fra", pools = { { gpu = "A100-80", count = 16 } } },
  },
  links = { { "ams", "fra", bandwidth = 40, latency = ms(4) } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
}
