-- expect: instruction budget of 50000000 exceeded
while true do end
