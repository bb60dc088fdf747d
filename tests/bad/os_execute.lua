-- expect: attempt to index a nil value (global 'os')
os.execute("touch /tmp/geoplan-pwned")
return {}
