-- KEYS: meta. ARGV: channel, message. Publishes the add of a writer that has no mirror while some
-- instance trusts its mirror's clear bits (trustingUntil ahead: trust.lua), and nothing otherwise:
-- nobody needs it then, and on a Redis Cluster every PUBLISH crosses the bus to every node.
-- Returns 1 when it published.
if tonumber(redis.call('HGET', KEYS[1], 'trustingUntil') or '0') > now() then
  redis.call('PUBLISH', ARGV[1], ARGV[2])
  return 1
end
return 0
