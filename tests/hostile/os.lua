-- expect: os.lua:3: undefined global 'os'
return {
  p2p = function(ch, ctx) return { latency = os.time(), bandwidth = 1e9 } end,
}
