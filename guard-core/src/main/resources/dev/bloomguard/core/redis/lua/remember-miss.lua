-- KEYS: miss, added, meta. ARGV: scope, ttl in ms, window in ms. See
-- BitmapStore.rememberMissAsync. The field holds <loadedAt>:<ends at>; the hash
-- lives as long as its longest field. A writer that does not remember misses marks its adds only
-- while missesUntil lies ahead; one that added without a mark left unmarkedAddAt
-- instead, and for the window after it no remember is taken, whatever its key: as if that add
-- had marked every key.
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local live = redis.call('HGET', KEYS[3], 'loadedAt')
if not live then return 0 end
local ttl = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
-- Tells writers that do not remember misses themselves to mark their adds until then.
local inUse = now() + ttl + window
if inUse > tonumber(redis.call('HGET', KEYS[3], 'missesUntil') or '0') then
  redis.call('HSET', KEYS[3], 'missesUntil', string.format('%d', inUse))
end
if now() - tonumber(redis.call('HGET', KEYS[3], 'unmarkedAddAt') or '0') < window then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], live .. ':' .. (now() + ttl))
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
