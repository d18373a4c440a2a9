package dev.bloomguard.test.memory;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.bloomguard.core.misses.MissKeys;
import dev.bloomguard.core.redis.MissStore;

/**
 * Remembered misses in memory ({@link MissStore}): remember, confirm and forget as
 * {@code remember-miss.lua}, {@code miss-remembered.lua} and {@code forget-misses-if-in-use.lua}
 * do, each under the keyspace's lock, with the store's clock for their TTLs and windows.
 */
final class MemoryMisses implements MissStore {

    private static final byte[] ONE = { '1' };

    private final Keyspace keys;

    MemoryMisses(Keyspace keys) {
        this.keys = keys;
    }

    @Override
    public CompletableFuture<Boolean> rememberMissAsync(String missKey, String scope, String addedKey,
            String metaKey, Duration ttl, long sendByNanos) {
        if (System.nanoTime() - sendByNanos > 0) {
            return CompletableFuture.completedFuture(false);
        }
        return Keyspace.async(() -> keys.write(() -> {
            if (keys.exists(addedKey)) {
                return false;
            }
            String live = keys.hash(metaKey).get("loadedAt");
            if (live == null) {
                return false;
            }
            long now = keys.now();
            long window = MissKeys.ADDED_WINDOW.toMillis();
            // Tells writers that do not remember misses themselves to mark their adds until then.
            long inUse = now + ttl.toMillis() + window;
            Map<String, String> meta = keys.hashToWrite(metaKey);
            if (inUse > number(meta.get("missesUntil"))) {
                meta.put("missesUntil", Long.toString(inUse));
            }
            if (now - number(meta.get("unmarkedAddAt")) < window) {
                return false;
            }
            keys.hashToWrite(missKey).put(scope, live + ":" + (now + ttl.toMillis()));
            if (keys.ttl(missKey) < ttl.toMillis()) {
                keys.expire(missKey, ttl.toMillis());
            }
            return true;
        }));
    }

    @Override
    public CompletableFuture<Boolean> missRememberedAsync(String missKey, String scope, String metaKey,
            Duration timeout) {
        return Keyspace.async(() -> keys.read(() -> {
            String remembered = keys.hash(missKey).get(scope);
            int separator = remembered == null ? -1 : remembered.indexOf(':');
            return separator >= 0 && remembered.substring(0, separator).equals(keys.hash(metaKey).get("loadedAt"))
                    && Long.parseLong(remembered.substring(separator + 1)) > keys.now();
        }));
    }

    @Override
    public CompletableFuture<Void> forgetMissesIfInUseAsync(String metaKey, List<String> missKeys,
            List<String> addedKeys, Duration window) {
        checkArgument(missKeys.size() == addedKeys.size(), "one added key per miss key");
        if (missKeys.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return Keyspace.async(() -> keys.write(() -> {
            boolean inUse = number(keys.hash(metaKey).get("missesUntil")) > keys.now();
            if (!inUse && keys.hash(metaKey).containsKey("loadedAt")) {
                // No marks: the remembers of the next window refuse every key instead.
                keys.hashToWrite(metaKey).put("unmarkedAddAt", Long.toString(keys.now()));
            }
            for (int i = 0; i < missKeys.size(); i++) {
                if (inUse) {
                    keys.set(addedKeys.get(i), ONE, Math.max(1, window.toMillis()));
                }
                keys.delete(missKeys.get(i));
            }
            return null;
        }));
    }

    @Override
    public CompletableFuture<Void> forgetMissesAsync(List<String> missKeys, List<String> addedKeys,
            Duration window) {
        checkArgument(addedKeys.isEmpty() || missKeys.size() == addedKeys.size(), "one added key per miss key");
        return Keyspace.async(() -> keys.write(() -> {
            // Marks first, then the misses: a remember racing with the add sees one or the other.
            addedKeys.forEach(added -> keys.set(added, ONE, Math.max(1, window.toMillis())));
            missKeys.forEach(keys::delete);
            return null;
        }));
    }

    private static long number(String value) {
        return value == null ? 0 : Long.parseLong(value);
    }
}
