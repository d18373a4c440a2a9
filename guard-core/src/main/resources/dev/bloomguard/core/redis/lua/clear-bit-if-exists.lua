if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('SETBIT', KEYS[1], ARGV[1], 0) end
return 0
