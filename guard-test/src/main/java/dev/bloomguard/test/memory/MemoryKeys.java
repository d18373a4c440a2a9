package dev.bloomguard.test.memory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.KeyStore;

/**
 * The key, hash and lock primitives in memory ({@link KeyStore}), each what its Redis command (or
 * {@code *-if-equals.lua}, {@code clear-bit-if-exists.lua}) does, under the keyspace's lock: a lock
 * is a key set if absent with an expiry, renewed and released only by the holder whose token it
 * still holds.
 */
final class MemoryKeys implements KeyStore {

    private static final Pattern REDIS_INTEGER = Pattern.compile("0|-?[1-9][0-9]*");

    private final Keyspace keys;

    MemoryKeys(Keyspace keys) {
        this.keys = keys;
    }

    @Override
    public void hashSet(String key, String field, String value) {
        keys.write(() -> keys.hashToWrite(key).put(field, value));
    }

    @Override
    public long hashIncrement(String key, String field, long by) {
        return keys.write(() -> {
            Map<String, String> hash = keys.hashToWrite(key);
            long value;
            try {
                value = Math.addExact(integer(hash.getOrDefault(field, "0")), by);
            }
            catch (NumberFormatException | ArithmeticException ex) {
                throw new BitmapStoreException("ERR hash value is not an integer or out of range: " + key, ex);
            }
            hash.put(field, Long.toString(value));
            return value;
        });
    }

    @Override
    public void hashDelete(String key, String field) {
        keys.write(() -> {
            if (keys.exists(key)) {
                keys.hashToWrite(key).remove(field);
                keys.dropIfEmpty(key);
            }
            return null;
        });
    }

    @Override
    public void clearBit(String key, long offset) {
        keys.write(() -> {
            if (keys.exists(key)) {
                keys.setBit(key, offset, false);
            }
            return null;
        });
    }

    @Override
    public long bitCount(String key) {
        return keys.read(() -> keys.bitCount(key));
    }

    @Override
    public long length(String key) {
        return keys.read(() -> keys.length(key));
    }

    @Override
    public void delete(String... names) {
        if (names.length == 0) {
            throw new BitmapStoreException("ERR wrong number of arguments for 'del' command: no key", null);
        }
        keys.write(() -> {
            for (String key : names) {
                keys.delete(key);
            }
            return null;
        });
    }

    @Override
    public boolean setIfAbsent(String key, String value, Duration ttl) {
        // Redis refuses PX under 1 ms before it looks at the key, and sets nothing.
        if (ttl != null && ttl.toMillis() <= 0) {
            throw new BitmapStoreException("ERR invalid expire time in 'set' command: " + ttl + " for " + key, null);
        }
        return keys.write(() -> {
            if (keys.exists(key)) {
                return false;
            }
            keys.setText(key, value, ttl == null ? 0 : ttl.toMillis());
            return true;
        });
    }

    @Override
    public boolean expireIfEquals(String key, String value, Duration ttl) {
        return keys.write(() -> {
            if (!value.equals(keys.text(key))) {
                return false;
            }
            if (ttl.toMillis() <= 0) {
                // PEXPIRE with no time left deletes the key at once.
                keys.delete(key);
                return true;
            }
            return keys.expire(key, ttl.toMillis());
        });
    }

    @Override
    public boolean deleteIfEquals(String key, String value) {
        return keys.write(() -> {
            if (!value.equals(keys.text(key))) {
                return false;
            }
            keys.delete(key);
            return true;
        });
    }

    @Override
    public Optional<String> get(String key) {
        return keys.read(() -> Optional.ofNullable(keys.string(key)).map(raw -> new String(raw, StandardCharsets.UTF_8)));
    }

    @Override
    public Map<String, String> hashGetAll(String key) {
        return keys.read(() -> new LinkedHashMap<>(keys.hash(key)));
    }

    /**
     * A value as Redis reads an integer ({@code string2ll}): {@code 0}, or an optional minus and
     * ASCII digits without a leading zero, within a long. {@link Long#parseLong} alone would also
     * take {@code +5}, {@code 05}, {@code -0} and digits of other scripts, which Redis refuses.
     */
    private static long integer(String value) {
        if (!REDIS_INTEGER.matcher(value).matches()) {
            throw new NumberFormatException("not an integer as Redis reads one: " + value);
        }
        return Long.parseLong(value);
    }
}
