-- KEYS: loading, current journal. ARGV: token, ttl (ms), mark. Returns the journal's length.
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return redis.call('RPUSH', KEYS[2], ARGV[3])
