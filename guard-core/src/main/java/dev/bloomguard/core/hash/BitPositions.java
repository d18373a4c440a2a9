package dev.bloomguard.core.hash;

import java.nio.charset.StandardCharsets;

/**
 * The k bit offsets of a key: Guava's {@code murmur3_128} of the key's canonical bytes, then
 * double hashing over the two 64-bit halves exactly as Guava's {@code MURMUR128_MITZ_64}
 * strategy does, so the same key and bit count give the same offsets as Guava's own filter.
 * With a keyed {@link KeyHash} (siphash), the same double hashing over its two values.
 *
 * <p>This is stored format. A golden test pins the offsets of known keys; a change here makes
 * every filter in Redis answer "absent" for keys it holds. Integer keys, the common case, are
 * written as decimal digits straight into a small per-thread buffer instead of going through a String.
 */
public final class BitPositions {

    private static final int MAX_LONG_DIGITS = 20;

    /**
     * Where an integer key's digits are written to be hashed, one buffer per thread, so that a
     * check allocates nothing. Nothing runs between writing and hashing them that could hash
     * another key on the same thread.
     */
    private static final ThreadLocal<byte[]> DIGITS = ThreadLocal.withInitial(() -> new byte[MAX_LONG_DIGITS]);

    private BitPositions() {
    }

    /**
     * Writes the {@code hashes} offsets of {@code key} in a filter of {@code bits} bits into
     * {@code into[from .. from + hashes)}.
     */
    public static void fill(Object key, long bits, int hashes, long[] into, int from) {
        fillSharded(key, bits, hashes, 1, into, from);
    }

    /**
     * As {@link #fill}, for a filter of {@code shards} shards of {@code bits} bits each: writes
     * the offsets within the key's shard and returns that shard. With one shard the offsets are
     * those of {@link #fill} and the shard is 0. The shard comes from a mix of both hash halves,
     * so it does not line up with the offsets inside the shard.
     */
    public static int fillSharded(Object key, long bits, int hashes, int shards, long[] into, int from) {
        return fillSharded(KeyHash.murmur3(), key, bits, hashes, shards, into, from);
    }

    /**
     * As {@link #fillSharded(Object, long, int, int, long[], int)}, hashed with {@code hash}: the
     * offsets and the shard both come from it, so a keyed hash leaves neither computable offline.
     */
    public static int fillSharded(KeyHash hash, Object key, long bits, int hashes, int shards, long[] into, int from) {
        if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
            byte[] digits = DIGITS.get();
            int length = decimal(((Number) key).longValue(), digits);
            return fillFromBytes(hash, digits, length, bits, hashes, shards, into, from);
        }
        byte[] bytes = KeyEncoding.canonicalBytes(key);
        return fillFromBytes(hash, bytes, bytes.length, bits, hashes, shards, into, from);
    }

    private static int fillFromBytes(KeyHash hash, byte[] bytes, int length, long bits, int hashes, int shards,
            long[] into, int from) {
        long[] secondHalf = new long[1];
        long hash1 = hash.hash(bytes, length, secondHalf);
        long hash2 = secondHalf[0];
        long combined = hash1;
        for (int i = 0; i < hashes; i++) {
            into[from + i] = (combined & Long.MAX_VALUE) % bits;
            combined += hash2;
        }
        return shards == 1 ? 0 : (int) Long.remainderUnsigned(Murmur3.fmix64(hash1 ^ Long.rotateLeft(hash2, 32)), shards);
    }

    /** The offsets of one key as a fresh array. */
    public static long[] of(Object key, long bits, int hashes) {
        return of(KeyHash.murmur3(), key, bits, hashes);
    }

    /** The offsets of one key hashed with {@code hash}, as a fresh array. */
    public static long[] of(KeyHash hash, Object key, long bits, int hashes) {
        long[] offsets = new long[hashes];
        fillSharded(hash, key, bits, hashes, 1, offsets, 0);
        return offsets;
    }

    /** Writes {@code value} as ASCII decimal into {@code into} (as {@link Long#toString(long)} would) and returns its length. */
    static int decimal(long value, byte[] into) {
        if (value == Long.MIN_VALUE) {
            byte[] text = "-9223372036854775808".getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, into, 0, text.length);
            return text.length;
        }
        boolean negative = value < 0;
        long rest = negative ? -value : value;
        int length = 1;
        for (long scan = rest; scan >= 10; scan /= 10) {
            length++;
        }
        if (negative) {
            length++;
        }
        int at = length;
        do {
            into[--at] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        while (rest != 0);
        if (negative) {
            into[0] = '-';
        }
        return length;
    }
}
