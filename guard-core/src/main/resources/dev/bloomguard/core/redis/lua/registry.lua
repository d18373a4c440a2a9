-- KEYS: generations, invalidated. Reads both with Redis's time, writing nothing. See .readRegistry.
return {now(), redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2])}
