-- KEYS: miss, meta. ARGV: scope. See BitmapStore.missRememberedAsync.
local remembered = redis.call('HGET', KEYS[1], ARGV[1])
if not remembered then return 0 end
local separator = string.find(remembered, ':', 1, true)
if not separator then return 0 end
if string.sub(remembered, 1, separator - 1) ~= redis.call('HGET', KEYS[2], 'loadedAt') then return 0 end
if tonumber(string.sub(remembered, separator + 1)) <= now() then return 0 end
return 1
