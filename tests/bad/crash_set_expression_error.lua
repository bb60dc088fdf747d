-- expect: --set name=os.getenv("USER"): 'os' is not available in geoplan's sandbox
-- args: --set 'name=os.getenv("USER")'
-- (was: accepted, the failing expression taken as the string 'os.getenv("USER")')
return {
  dcs = { { name = "a", pools = { { gpu = "H100", count = 8 } } } },
  model = "OPT-350M",
  job = { seq = 2048, global_batch = 8 },
}
