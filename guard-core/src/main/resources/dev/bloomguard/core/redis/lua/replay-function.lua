-- Lua shared by the replay and swap scripts: sets on bitmap the bits of each add in
-- entries (its packed 4-byte big-endian offsets), skipping loads' marks (12 bytes
-- starting with the marker's offset, like mark) and blanked marks (empty). The bits
-- go 256 to a BITFIELD, not one SETBIT each: a call from Lua costs far more
-- than a bit. Returns the adds replayed.
local function replay(bitmap, entries, mark)
  local markPrefix = string.sub(mark, 1, 4)
  local replayed = 0
  local sets = {}
  local n = 0
  for i = 1, #entries do
    local entry = entries[i]
    if #entry > 0 and #entry % 4 == 0 and not (#entry == #mark and string.sub(entry, 1, 4) == markPrefix) then
      replayed = replayed + 1
      for j = 1, #entry, 4 do
        local b1, b2, b3, b4 = string.byte(entry, j, j + 3)
        sets[n + 1] = 'SET'
        sets[n + 2] = 'u1'
        sets[n + 3] = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
        sets[n + 4] = '1'
        n = n + 4
        if n >= 1024 then
          redis.call('BITFIELD', bitmap, unpack(sets, 1, n))
          n = 0
        end
      end
    end
  end
  if n > 0 then redis.call('BITFIELD', bitmap, unpack(sets, 1, n)) end
  return replayed
end
