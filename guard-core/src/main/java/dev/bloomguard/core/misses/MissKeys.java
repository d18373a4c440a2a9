package dev.bloomguard.core.misses;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.hash.KeyEncoding;
import dev.bloomguard.core.redis.MissStore;

/**
 * The Redis names of a filter's remembered misses, apart from {@link RememberedMisses} (and from
 * Caffeine, which it needs): every add forgets, whether or not its own instance remembers.
 * Both live in the key's own shard's hash slot, beside that shard's {@code :meta}, its bits and its
 * add count: on a Redis Cluster one node holds them all, and whatever state of that node a
 * failover brings back, the forget came before the add's bits in it. Never in another shard's
 * slot, whose node could come back without the forget while the bits stay.
 */
public final class MissKeys {

    /**
     * How long an add's mark ({@link #added}) refuses remembers of its key. Every add sets it,
     * whether or not its instance remembers misses: the race it closes is between any writer and
     * any instance that remembers.
     */
    public static final Duration ADDED_WINDOW = MissStore.ADDED_WINDOW;

    private static final HexFormat HEX = HexFormat.of();

    private MissKeys() {
    }

    /** The hash that remembers misses of the key of {@code digest}, in {@code shard}, one field per lookup. */
    public static String miss(FilterKeys keys, int shard, String digest) {
        return keys.live(shard) + ":miss:" + digest;
    }

    /** The mark of a key of {@code shard} just added, which refuses remembers of it for a while. */
    public static String added(FilterKeys keys, int shard, String digest) {
        return keys.live(shard) + ":added:" + digest;
    }

    /**
     * The first 128 bits of the SHA-256 of the canonical bytes, in hex: not Murmur3, as a computed
     * collision must not let one key's miss reject another key. No key text in Redis key names.
     */
    public static String digest(Object canonicalKey) {
        return digest(KeyEncoding.canonicalBytes(canonicalKey));
    }

    static String digest(byte[] canonicalBytes) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(canonicalBytes);
            return HEX.formatHex(sha, 0, 16);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java platform has SHA-256", ex);
        }
    }
}
