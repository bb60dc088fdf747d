-- expect: gpus["slow"]: tflops 312 FLOP/s and hbm_bandwidth 2e+12 B/s: expected at least 1 GFLOP/s and 1 kB/s (write TFLOPS(x) and GBps(x))
return {
  gpus = { slow = { tflops = 312, memory = GB(80), hbm_bandwidth = GBps(2000) } },
  dcs = { { name = "ams", pools = { { gpu = "slow", count = 16 } } } },
  model = "Llama-3-8B",
  job = { seq = 4096, global_batch = 16 },
}
