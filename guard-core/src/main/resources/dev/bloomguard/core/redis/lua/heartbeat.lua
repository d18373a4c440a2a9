-- KEYS: instances, generations, invalidated. ARGV: instance id, instance value, the number n of
-- generations heartbeated, those n generations, then the live keys of generations found left
-- unwritten, recorded at the same time. See .heartbeat.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = string.format('%d', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. now)
local n = tonumber(ARGV[3])
for i = 4, 3 + n do
  redis.call('HSET', KEYS[2], ARGV[i], now)
end
for i = 4 + n, #ARGV do
  redis.call('HSET', KEYS[3], ARGV[i], now)
end
return {tonumber(now), redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3])}
