-- expect: 'os' is not available in geoplan's sandbox
os.execute("touch /tmp/geoplan-pwned")
return {}
