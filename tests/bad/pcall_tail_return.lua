-- expect: instruction budget of 50000000 exceeded (endless loop?)
-- A tail call of pcall runs no instruction after the stop; the run fails all the same.
return pcall(function() while true do end end)
