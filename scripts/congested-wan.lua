-- congested-wan.lua: WAN links that are slower than their line rate,
-- and slower still for small messages.
--
-- geoplan's default gives a WAN link its full nominal bandwidth for
-- every message (Hockney: n bytes take latency + n / bandwidth), and the
-- simulator shares it fairly among the job's own flows. Real long-haul
-- links do worse, for two reasons this script models:
--
--  * Shared links. Other tenants' traffic, TCP's losses and
--    retransmissions leave the job a fraction of the line rate:
--    wan_efficiency, a calibratable parameter (default 0.7, an
--    assumption, not a measurement: fit it to a measured run, or set it
--    to what iperf achieves on your link at training time).
--  * Small messages. A TCP flow starts slowly and sends about one
--    bandwidth-delay product (bandwidth x round-trip time) before it
--    reaches its rate (Jacobson, "Congestion Avoidance and Control",
--    SIGCOMM '88: slow start doubles the window every round trip). A
--    message of n bytes then achieves about n / (n + n_half) of the
--    bandwidth, with n_half = ramp x bandwidth x 2 x latency (ramp: a
--    calibratable parameter, default 1, one bandwidth-delay product);
--    Hockney calls n_half the half-performance message length. Each
--    message pays ramp round trips more than its latency.
--
-- The curve is given to geoplan at powers of two from 64 KiB to 64 GiB
-- (21 points); geoplan reads it at the size of the messages the link
-- carries (a stage boundary's activation, one layer's gradients),
-- linearly in log(bytes) between points. NVLink and the NICs inside a
-- DC keep the default's figures.

-- The fraction of the bandwidth a message of n bytes achieves.
local function fraction(n, n_half)
  return n / (n + n_half)
end

-- The WAN's figures: a lower bandwidth and a curve over message size.
local function wan(channel, ctx, d)
  local bw = d.bandwidth * ctx.params.wan_efficiency
  local n_half = ctx.params.ramp * bw * 2 * channel.latency
  local curve = {}
  for e = 16, 36 do
    local n = 2.0 ^ e
    curve[#curve + 1] = { n, fraction(n, n_half) }
  end
  return { latency = d.latency, bandwidth = bw, curve = curve }
end

return {
  description = "WAN links at a calibratable fraction of their rate, slower for small messages",
  params = {
    wan_efficiency = { 0.7, min = 0.1, max = 1.0 },
    ramp = { 1.0, min = 0.0, max = 8.0 },
  },
  p2p = function(channel, ctx)
    local d = geoplan.default.p2p(channel, ctx)
    if channel.kind ~= "wan" then return d end
    return wan(channel, ctx, d)
  end,
  allreduce = function(channel, ctx)
    local d = geoplan.default.allreduce(channel, ctx)
    if channel.kind ~= "wan" then return d end
    return wan(channel, ctx, d)
  end,
}
