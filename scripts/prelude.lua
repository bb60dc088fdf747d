-- prelude.lua: what every geoplan scenario file sees before it runs.
--
-- Unit helpers turn readable numbers into the SI values geoplan works in
-- (seconds, bytes, bytes per second, FLOP per second), and two catalogs
-- name GPUs (figures from the vendors' datasheets) and decoder models
-- (shapes from their papers and released configurations); the sources
-- are given with each catalog below.
--
-- This file runs once, in its own environment; every scenario file then
-- runs in a fresh one with the helpers and its own copy of the catalog,
-- so nothing one file changes reaches another. The sandbox offers only
-- the base, table, string, math and utf8 libraries, without load,
-- loadfile, dofile, require, collectgarbage, io or os; geoplan-scenario(5)
-- says what it stops and what it does not.

-- A helper called with something that is not a number blames the
-- caller's line, not the prelude.
local function num(x, helper)
  if type(x) ~= "number" then
    error(helper .. ": expected a number, got " .. tostring(x), 3)
  end
  return x
end

function Gbps(x) return num(x, "Gbps") * 1e9 / 8 end      -- gigabits/s  -> bytes/s
function GBps(x) return num(x, "GBps") * 1e9 end          -- gigabytes/s -> bytes/s
function ms(x) return num(x, "ms") * 1e-3 end             -- milliseconds -> s
function us(x) return num(x, "us") * 1e-6 end             -- microseconds -> s
function GiB(x) return num(x, "GiB") * 1073741824 end     -- 2^30 bytes
function GB(x) return num(x, "GB") * 1e9 end
function MiB(x) return num(x, "MiB") * 1048576 end        -- 2^20 bytes
function TFLOPS(x) return num(x, "TFLOPS") * 1e12 end     -- 10^12 FLOP/s

-- GPUs. tflops and fp8_tflops: dense bf16/fp16 and FP8 tensor peaks
-- (0: no FP8); memory in the vendor's unit (GiB for HBM: an "80 GB" H100
-- holds 80 GiB; GB for the L40S's GDDR6); HBM bandwidth: the vendors'
-- datasheets (NVIDIA V100, A100, H100, H200, GH200, L40S, B200; AMD
-- MI300X). nvlink: per GPU, per direction, inside a node (half the
-- datasheet's bidirectional NVLink / Infinity Fabric figure; L40S has no
-- NVLink and uses PCIe 4.0 x16). efficiency: the fraction of peak large
-- GEMMs reach; smaller GEMMs, memory-bound work and communication come on
-- top in the cost model. It is fitted with the default model's constants
-- to measured runs (tests/data) where there are any: efficiency_data
-- names them. A type with none borrows the fit of the measured type of
-- its generation, and efficiency_borrows names it (sim and plan say so
-- under the figures): Volta and Ampere take A100-80's (0.89 of peak);
-- Ada, Hopper, Blackwell and CDNA 3, the generations of 2022 on, take
-- H100's (0.64). A borrowed figure is a guess, not a measurement: with
-- A100's, an MI300X came out 1.8 times an H100 and an L40S faster than
-- an A100.
-- Peaks, memory and bandwidth checked against the datasheets: NVIDIA
-- H100 and H200 (989 TFLOP/s dense BF16, 1979 FP8; 3.35 and 4.8 TB/s;
-- 80 and 141 GB), L40S (362.05 dense BF16, 733 dense FP8, the starred
-- figures are sparse; 48 GB GDDR6, 864 GB/s; PCIe Gen4 x16), A100 (312;
-- 1555 GB/s for 40 GB, 2039 for 80 GB SXM), V100 SXM2 (125; 900 GB/s),
-- AMD Instinct MI300X (1307.4 dense BF16, 2614.9 FP8; 192 GB HBM3,
-- 5.3 TB/s; 896 GB/s of Infinity Fabric peer links), HGX B200 (2250
-- dense BF16, 4500 dense FP8, 8 TB/s, 1.8 TB/s NVLink 5; 180 GB, of
-- which nvidia-smi reports about 179), GH200 (the H100's peaks, 96 GB HBM3 at
-- 4 TB/s).
-- Prices are user data: 0 until a scenario says otherwise.
local A100_EFF, H100_EFF = 0.89254, 0.64193
local A100_DATA = "vTrain and Korthikanti et al., Megatron-LM on A100-80: 118 runs (tests/data)"
local H100_DATA = "NeMo 24.11 on DGX H100, BF16 and FP8: 36 runs (tests/data)"
catalog = { gpus = {
  ["V100-16"] = { tflops = TFLOPS(125), fp8_tflops = 0, memory = GiB(16), hbm_bandwidth = GBps(900), nvlink = GBps(150), efficiency = A100_EFF, efficiency_borrows = "A100-80" },
  ["V100-32"] = { tflops = TFLOPS(125), fp8_tflops = 0, memory = GiB(32), hbm_bandwidth = GBps(900), nvlink = GBps(150), efficiency = A100_EFF, efficiency_borrows = "A100-80" },
  ["A100-40"] = { tflops = TFLOPS(312), fp8_tflops = 0, memory = GiB(40), hbm_bandwidth = GBps(1555), nvlink = GBps(300), efficiency = A100_EFF, efficiency_borrows = "A100-80" },
  ["A100-80"] = { tflops = TFLOPS(312), fp8_tflops = 0, memory = GiB(80), hbm_bandwidth = GBps(2039), nvlink = GBps(300), efficiency = A100_EFF, efficiency_data = A100_DATA },
  ["H100"]    = { tflops = TFLOPS(989), fp8_tflops = TFLOPS(1979), memory = GiB(80), hbm_bandwidth = GBps(3350), nvlink = GBps(450), efficiency = H100_EFF, efficiency_data = H100_DATA },
  ["H200"]    = { tflops = TFLOPS(989), fp8_tflops = TFLOPS(1979), memory = GiB(141), hbm_bandwidth = GBps(4800), nvlink = GBps(450), efficiency = H100_EFF, efficiency_borrows = "H100" },
  ["GH200"]   = { tflops = TFLOPS(989), fp8_tflops = TFLOPS(1979), memory = GiB(96), hbm_bandwidth = GBps(4000), nvlink = GBps(450), efficiency = H100_EFF, efficiency_borrows = "H100" },
  ["L40S"]    = { tflops = TFLOPS(362), fp8_tflops = TFLOPS(733), memory = GB(48), hbm_bandwidth = GBps(864), nvlink = GBps(32), efficiency = H100_EFF, efficiency_borrows = "H100" },
  ["MI300X"]  = { tflops = TFLOPS(1307), fp8_tflops = TFLOPS(2615), memory = GiB(192), hbm_bandwidth = GBps(5300), nvlink = GBps(448), efficiency = H100_EFF, efficiency_borrows = "H100" },
  ["B200"]    = { tflops = TFLOPS(2250), fp8_tflops = TFLOPS(4500), memory = GiB(180), hbm_bandwidth = GBps(8000), nvlink = GBps(900), efficiency = H100_EFF, efficiency_borrows = "H100" },
} }

-- Models: decoder transformers. Shapes from the models' papers and
-- configuration files (OPT: Zhang et al. 2022; GPT-3: Brown et al. 2020;
-- Llama 2: Touvron et al. 2023; Llama 3: Meta 2024).
catalog.models = {
  ["OPT-350M"]       = { layers = 24,  hidden = 1024,  heads = 16,  kv_heads = 16,  ffn = 4096,  vocab = 50272 },
  ["GPT-3-XL"]       = { layers = 24,  hidden = 2048,  heads = 16,  kv_heads = 16,  ffn = 8192,  vocab = 50257 },
  ["Llama-2-7B"]     = { layers = 32,  hidden = 4096,  heads = 32,  kv_heads = 32,  ffn = 11008, vocab = 32000,  gated = true },
  ["Llama-3-8B"]     = { layers = 32,  hidden = 4096,  heads = 32,  kv_heads = 8,   ffn = 14336, vocab = 128256, gated = true },
  ["Llama-3-70B"]    = { layers = 80,  hidden = 8192,  heads = 64,  kv_heads = 8,   ffn = 28672, vocab = 128256, gated = true },
  ["Llama-3.1-405B"] = { layers = 126, hidden = 16384, heads = 128, kv_heads = 8,   ffn = 53248, vocab = 128256, gated = true },
  ["GPT-3-175B"]     = { layers = 96,  hidden = 12288, heads = 96,  kv_heads = 96,  ffn = 49152, vocab = 50257 },
}
