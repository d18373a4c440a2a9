-- KEYS: current journal, previous, since, dropped, loading. ARGV: retention (ms), capacity.
-- Time is Redis's own, so instances' clocks do not matter. While a load holds the journal, the
-- current list is neither rotated nor trimmed: the load's mark must stay where it was left.
-- Returns the entries dropped.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local retention = tonumber(ARGV[1])
local since = tonumber(redis.call('GET', KEYS[3]))
if not since then
  redis.call('SET', KEYS[3], now)
elseif now - since >= retention and redis.call('EXISTS', KEYS[5]) == 0 then
  redis.call('UNLINK', KEYS[2])
  if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('RENAME', KEYS[1], KEYS[2]) end
  redis.call('SET', KEYS[3], now)
end
local previous = redis.call('LLEN', KEYS[2])
local over = previous + redis.call('LLEN', KEYS[1]) - tonumber(ARGV[2])
if over <= 0 then return 0 end
local fromPrevious = math.min(over, previous)
local fromCurrent = 0
local holding = redis.call('PTTL', KEYS[5])
if holding < 0 then fromCurrent = over - fromPrevious end
if fromPrevious > 0 then redis.call('LTRIM', KEYS[2], fromPrevious, -1) end
if fromCurrent > 0 then redis.call('LTRIM', KEYS[1], fromCurrent, -1) end
if fromPrevious + fromCurrent > 0 then
  -- a running load may swap as late as its hold lasts: merge until then, and a retention more
  redis.call('SET', KEYS[4], '1', 'PX', math.max(1, retention + math.max(0, holding)))
end
return fromPrevious + fromCurrent
