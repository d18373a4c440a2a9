-- KEYS: instances, generations, invalidated. ARGV: instance id, instance value, then the generations heartbeated.
-- See .heartbeat.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. string.format('%d', now))
for i = 3, #ARGV do
  redis.call('HSET', KEYS[2], ARGV[i], string.format('%d', now))
end
return {now, redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3])}
