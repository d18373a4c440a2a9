-- KEYS: meta, then mark and miss of each key. ARGV: window in ms. See
-- BitmapStore.forgetMissesIfInUseAsync.
local inUse = tonumber(redis.call('HGET', KEYS[1], 'missesUntil') or '0') > now()
if not inUse and redis.call('HGET', KEYS[1], 'loadedAt') then
  -- No marks: the remembers of the next window refuse every key instead.
  redis.call('HSET', KEYS[1], 'unmarkedAddAt', string.format('%d', now()))
end
for i = 2, #KEYS, 2 do
  if inUse then redis.call('SET', KEYS[i], '1', 'PX', ARGV[1]) end
  redis.call('DEL', KEYS[i + 1])
end
return 0
