-- KEYS: meta. ARGV: channel, ping, ttl (ms). Keeps trustingUntil (Redis ms) at least ttl ahead,
-- once the filter is loaded (loadedAt): while it lies ahead, writers without a mirror publish their
-- adds (announce.lua), which a mirror that trusts its clear bits must hear. Then publishes the
-- ping, by which the caller knows that it hears the channel. Returns trustingUntil as it was
-- (0 when missing: never set, or lost with :meta), as it is now, and Redis's time.
local before = tonumber(redis.call('HGET', KEYS[1], 'trustingUntil') or '0')
local after = before
if redis.call('HGET', KEYS[1], 'loadedAt') then
  local wanted = now() + tonumber(ARGV[3])
  if wanted > before then
    redis.call('HSET', KEYS[1], 'trustingUntil', string.format('%d', wanted))
    after = wanted
  end
end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return {before, after, now()}
