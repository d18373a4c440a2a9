package dev.bloomguard.core.context;

import java.time.Duration;
import java.util.concurrent.Executor;

import org.slf4j.Logger;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.internal.Arguments;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * What every part of one filter (its checks, writes, loads and status) shares: its identity, where
 * it lives in Redis, and the executor that runs its background work. Built once by
 * {@code RedisBloomFilter}; immutable.
 *
 * <p>{@link #log} is the façade's logger, so that an operator's {@code logging.level} for
 * {@code dev.bloomguard.core.filter.RedisBloomFilter} keeps covering every message of a filter.
 *
 * <p>Not part of the API (see {@link Arguments}).
 *
 * @param checkTimeout bound of one check's Redis read
 * @param background runs work a check or an add must not wait for (never a Lettuce I/O thread)
 */
public record FilterContext(String name, FilterGeometry geometry, KeyType keyType, KeyHash hash, FilterKeys keys,
        BitmapStore store, Duration checkTimeout, String instanceId, Executor background, Logger log) {

    /** What is hashed for {@code key}: the same for a check, an add and a loaded key, so that all three meet. */
    public Object canonical(Object key) {
        return keyType == null ? key : keyType.canonical(key);
    }

    /**
     * Writes the k offsets of {@code key} into {@code offsets} from {@code from}, within its
     * shard's bitmap, and returns the shard; the one place that hashes a key.
     */
    public int place(Object key, long[] offsets, int from) {
        return BitPositions.fillSharded(hash, canonical(key), geometry.bits(), geometry.hashes(), geometry.shards(),
                offsets, from);
    }
}
