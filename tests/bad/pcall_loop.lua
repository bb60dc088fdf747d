-- expect: instruction budget of 50000000 exceeded
while true do pcall(function() while true do end end) end
