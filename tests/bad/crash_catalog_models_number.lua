-- expect: crash_catalog_models_number.lua: catalog.models: expected a table (the prelude's catalog), got 5
-- (was: SIGSEGV, reading catalog.models without checking it is a table)
catalog.models = 5
return { dcs = { { name = "a", pools = { { gpu = "H100", count = 8 } } } }, model = "Llama-3-8B", job = { seq = 4096, global_batch = 8, micro_batch = 1 } }
