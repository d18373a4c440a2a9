package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The small key, hash and lock primitives the rest is built on.
 *
 * <p>A role of {@link BitmapStore}; every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface KeyStore {

    /** {@code HSET key field value}. */
    void hashSet(String key, String field, String value);

    /** {@code HINCRBY key field by}: the field's new value. */
    long hashIncrement(String key, String field, long by);

    /** {@code HDEL key field}. */
    void hashDelete(String key, String field);

    /**
     * {@code HDEL key field}, waiting at most {@code timeout} for Redis rather than the store's
     * operation timeout: for a delete that is a courtesy, such as an instance leaving at shutdown.
     */
    default void hashDelete(String key, String field, Duration timeout) {
        hashDelete(key, field);
    }

    /** {@code SETBIT key offset 0} when the key exists (a missing key stays missing). */
    void clearBit(String key, long offset);

    /** {@code BITCOUNT} of the whole value; 0 when it does not exist. */
    long bitCount(String key);

    /** Length of the key's value in bytes, 0 when it does not exist. */
    long length(String key);

    /** {@code DEL keys...}: one command, so keys must share a cluster slot. */
    void delete(String... keys);

    /** {@code SET key value NX PX ttl} ({@code ttl} null: no expiry): true when the key was free and is now {@code value}. */
    boolean setIfAbsent(String key, String value, Duration ttl);

    /** Extends the expiry of {@code key} only while it still holds {@code value}. */
    boolean expireIfEquals(String key, String value, Duration ttl);

    /** Deletes {@code key} only while it still holds {@code value}. */
    boolean deleteIfEquals(String key, String value);

    Optional<String> get(String key);

    Map<String, String> hashGetAll(String key);
}
