-- expect: a scenario file must return a table ({ ... }), it returned 42
return 42
