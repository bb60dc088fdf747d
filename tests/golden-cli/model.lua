-- model.lua: a cost model of closed forms for the report goldens, so
-- their figures stay what they are when the default model is refitted.
-- Forward: the layer's FLOPs at half the GPU's peak over TP; backward
-- and weight gradient the same again each; memory 34 sbh / t bytes;
-- every channel at its nominal figures; Adam at 16 bytes a parameter;
-- no reserve.
return {
  description = "closed forms for tests/report.test.sh",
  compute = function(layer, gpu, ctx)
    local f = layer.flops / (0.5 * gpu.tflops * ctx.tp)
    return f, f, f
  end,
  memory = function(layer, gpu, ctx)
    if layer.kind == "logits" then
      return 4 * layer.micro_batch * layer.seq * layer.vocab / ctx.tp, 0
    end
    return 34 * layer.seq * layer.micro_batch * layer.hidden / ctx.tp, 0
  end,
  p2p = function(ch, ctx) return { latency = ch.latency, bandwidth = ch.bandwidth } end,
  allreduce = function(ch, ctx) return { latency = ch.latency, bandwidth = ch.bandwidth } end,
  optimizer = function(gpu, n, ctx) return n * 16 / gpu.hbm_bandwidth end,
  reserve = function(gpu, ctx) return 0 end,
}
