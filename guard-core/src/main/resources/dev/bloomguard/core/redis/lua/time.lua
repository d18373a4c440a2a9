-- KEYS: a key of the slot whose node's clock is read (not touched). See .timeMillis.
return now()
