-- KEYS: staging, list to replay, current journal, loading. ARGV: token, start, count, mark,
-- mark index, then the uploaded length and population when the upload is to be verified.
-- Never creates the staging key: a step that found it gone would otherwise recreate it.
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return {-3, 0} end
if #ARGV > 5 then
  if redis.call('STRLEN', KEYS[1]) ~= tonumber(ARGV[6])
      or redis.call('BITCOUNT', KEYS[1]) ~= tonumber(ARGV[7]) then return {-1, 0} end
elseif redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
if redis.call('LINDEX', KEYS[3], ARGV[5]) ~= ARGV[4] then return {-2, 0} end
local start = tonumber(ARGV[2])
local entries = redis.call('LRANGE', KEYS[2], start, start + tonumber(ARGV[3]) - 1)
return {#entries, replay(KEYS[1], entries, ARGV[4])}
