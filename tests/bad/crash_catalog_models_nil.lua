-- expect: crash_catalog_models_nil.lua: catalog.models: expected a table (the prelude's catalog), got nil
-- (was: SIGSEGV, reading catalog.models without checking it is a table)
catalog.models = nil
return { dcs = { { name = "a", pools = { { gpu = "H100", count = 8 } } } }, model = "Llama-3-8B", job = { seq = 4096, global_batch = 8, micro_batch = 1 } }
