package dev.bloomguard.core.hash;

import com.google.common.hash.HashCode;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import com.google.common.primitives.Longs;

/**
 * The k bit offsets of a key: Guava's {@code murmur3_128} of the key's canonical bytes, then
 * double hashing over the two 64-bit halves exactly as Guava's {@code MURMUR128_MITZ_64}
 * strategy does, so the same key and bit count give the same offsets as Guava's own filter.
 *
 * <p>This is stored format. A golden test pins the offsets of known keys; a change here makes
 * every filter in Redis answer "absent" for keys it holds.
 */
public final class BitPositions {

    private static final HashFunction MURMUR3_128 = Hashing.murmur3_128();

    private BitPositions() {
    }

    /**
     * Writes the {@code hashes} offsets of {@code key} in a filter of {@code bits} bits into
     * {@code into[from .. from + hashes)}.
     */
    public static void fill(Object key, long bits, int hashes, long[] into, int from) {
        fillFromBytes(KeyEncoding.canonicalBytes(key), bits, hashes, into, from);
    }

    /** As {@link #fill}, for bytes that are already canonical. */
    public static void fillFromBytes(byte[] canonicalBytes, long bits, int hashes, long[] into, int from) {
        HashCode hash = MURMUR3_128.hashBytes(canonicalBytes);
        byte[] bytes = hash.asBytes();
        long hash1 = Longs.fromBytes(bytes[7], bytes[6], bytes[5], bytes[4], bytes[3], bytes[2], bytes[1], bytes[0]);
        long hash2 = Longs.fromBytes(bytes[15], bytes[14], bytes[13], bytes[12], bytes[11], bytes[10], bytes[9], bytes[8]);
        long combined = hash1;
        for (int i = 0; i < hashes; i++) {
            into[from + i] = (combined & Long.MAX_VALUE) % bits;
            combined += hash2;
        }
    }

    /** The offsets of one key as a fresh array. */
    public static long[] of(Object key, long bits, int hashes) {
        long[] offsets = new long[hashes];
        fill(key, bits, hashes, offsets, 0);
        return offsets;
    }
}
