-- expect: [tests/bad/print_then_fail.lua:3] printed to the log, not stdout
-- The checker wants stdout empty: print writes to stderr.
print("printed to the log, not stdout")
return {}
