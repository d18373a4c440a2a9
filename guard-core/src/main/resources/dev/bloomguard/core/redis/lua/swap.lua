-- KEYS: staging, live, current journal, meta, loading, dropped. ARGV: token, uploaded length,
-- mark, mark index, tail start, then meta field/value pairs. Returns the adds replayed, or -1
-- (staging altered), -2 (journal lost the mark), -3 (superseded by a newer load).
if redis.call('GET', KEYS[5]) ~= ARGV[1] then return -3 end
if redis.call('STRLEN', KEYS[1]) ~= tonumber(ARGV[2]) then return -1 end
if redis.call('LINDEX', KEYS[3], ARGV[4]) ~= ARGV[3] then return -2 end
local replayed = replay(KEYS[1], redis.call('LRANGE', KEYS[3], ARGV[5], -1), ARGV[3])
if redis.call('EXISTS', KEYS[6]) == 1 and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('BITOP', 'OR', KEYS[1], KEYS[1], KEYS[2])
end
redis.call('PERSIST', KEYS[1])
redis.call('RENAME', KEYS[1], KEYS[2])
-- What writers and remembers tell each other outlives the load: see remember-miss.lua.
local missesUntil = redis.call('HGET', KEYS[4], 'missesUntil')
local unmarkedAddAt = redis.call('HGET', KEYS[4], 'unmarkedAddAt')
-- And so does whether writers without a mirror must announce their adds: see trust.lua.
local trustingUntil = redis.call('HGET', KEYS[4], 'trustingUntil')
redis.call('DEL', KEYS[5], KEYS[4])
if #ARGV > 5 then
  redis.call('HSET', KEYS[4], unpack(ARGV, 6))
  if missesUntil then redis.call('HSET', KEYS[4], 'missesUntil', missesUntil) end
  if unmarkedAddAt then redis.call('HSET', KEYS[4], 'unmarkedAddAt', unmarkedAddAt) end
  if trustingUntil then redis.call('HSET', KEYS[4], 'trustingUntil', trustingUntil) end
end
return replayed
