package dev.bloomguard.core.hash;

/**
 * MurmurHash3 x64 128-bit with seed 0, bit for bit what Guava's {@code Hashing.murmur3_128()}
 * returns, but over a byte range and without allocating: the warmup hashes millions of keys a
 * second and a check sits on the request path. {@code BitPositionsTests} pins it to Guava.
 */
final class Murmur3 {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private Murmur3() {
    }

    /**
     * Hashes {@code bytes[0 .. length)} and returns the first half (Guava's {@code asLong()});
     * the second half is written to {@code secondHalf[0]}.
     */
    static long hash(byte[] bytes, int length, long[] secondHalf) {
        long h1 = 0;
        long h2 = 0;
        int blocks = length & ~15;
        for (int i = 0; i < blocks; i += 16) {
            long k1 = littleEndianLong(bytes, i);
            long k2 = littleEndianLong(bytes, i + 8);
            h1 ^= mixK1(k1);
            h1 = Long.rotateLeft(h1, 27);
            h1 += h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2(k2);
            h2 = Long.rotateLeft(h2, 31);
            h2 += h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        int remaining = length - blocks;
        if (remaining > 0) {
            long k1 = 0;
            long k2 = 0;
            for (int i = remaining - 1; i >= 8; i--) {
                k2 ^= (long) (bytes[blocks + i] & 0xff) << ((i - 8) * 8);
            }
            for (int i = Math.min(remaining, 8) - 1; i >= 0; i--) {
                k1 ^= (long) (bytes[blocks + i] & 0xff) << (i * 8);
            }
            h1 ^= mixK1(k1);
            h2 ^= mixK2(k2);
        }
        h1 ^= length;
        h2 ^= length;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        h2 += h1;
        secondHalf[0] = h2;
        return h1;
    }

    private static long littleEndianLong(byte[] bytes, int at) {
        return (bytes[at] & 0xffL) | (bytes[at + 1] & 0xffL) << 8 | (bytes[at + 2] & 0xffL) << 16
                | (bytes[at + 3] & 0xffL) << 24 | (bytes[at + 4] & 0xffL) << 32 | (bytes[at + 5] & 0xffL) << 40
                | (bytes[at + 6] & 0xffL) << 48 | (bytes[at + 7] & 0xffL) << 56;
    }

    private static long mixK1(long k1) {
        k1 *= C1;
        k1 = Long.rotateLeft(k1, 31);
        k1 *= C2;
        return k1;
    }

    private static long mixK2(long k2) {
        k2 *= C2;
        k2 = Long.rotateLeft(k2, 33);
        k2 *= C1;
        return k2;
    }

    static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
