package dev.bloomguard.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Objects;

/**
 * The shape of one filter: how many bits, how many hash functions, sized from the expected
 * number of keys and the wanted false-positive probability with Guava's formulas.
 *
 * <p>The geometry is part of the stored format: bits written with one geometry are meaningless
 * under another, so {@link #id()} is part of every Redis key name and a changed
 * {@code expected-insertions} or {@code fpp} writes new keys instead of reusing old ones.
 * The bit count is rounded up to a multiple of 64, as Guava's bit array does, so a key lands on
 * the same offsets here as in {@code com.google.common.hash.BloomFilter} of the same size.
 */
public final class FilterGeometry {

    /** One Redis string holds at most 2^32 bits (512 MiB); the marker bit needs one of them. */
    public static final long MAX_BITS = (1L << 32) - 64;

    private static final double LOG_TWO = Math.log(2);

    private final long expectedInsertions;
    private final double fpp;
    private final long bits;
    private final int hashes;

    private FilterGeometry(long expectedInsertions, double fpp, long bits, int hashes) {
        this.expectedInsertions = expectedInsertions;
        this.fpp = fpp;
        this.bits = bits;
        this.hashes = hashes;
    }

    /**
     * Sizes a filter for {@code expectedInsertions} keys at false-positive probability {@code fpp}.
     *
     * @throws IllegalArgumentException naming the bad value, or when the filter would not fit one
     *     Redis string
     */
    public static FilterGeometry of(long expectedInsertions, double fpp) {
        checkArgument(expectedInsertions >= 1, "expected-insertions (%s) must be at least 1", expectedInsertions);
        checkArgument(fpp > 0.0 && fpp < 1.0, "fpp (%s) must be in (0, 1)", fpp);
        // Checked before rounding: a huge n saturates the bit count at Long.MAX_VALUE, and rounding
        // that up to a word overflows to a negative number, which would pass as a 64-bit filter.
        long unrounded = optimalNumOfBits(expectedInsertions, fpp);
        checkArgument(unrounded <= MAX_BITS,
                "a filter of %s expected insertions at fpp %s needs %s bits, more than one Redis string holds (%s)",
                expectedInsertions, fpp, unrounded, MAX_BITS);
        long bits = roundUpToWord(unrounded);
        return new FilterGeometry(expectedInsertions, fpp, bits, optimalNumOfHashFunctions(fpp));
    }

    /** m = -n ln(p) / (ln 2)^2, truncated as Guava does. */
    static long optimalNumOfBits(long n, double p) {
        return (long) (-n * Math.log(p) / (LOG_TWO * LOG_TWO));
    }

    /** k = round(-ln(p) / ln 2), at least 1: the k that minimises the false-positive rate at m/n. */
    static int optimalNumOfHashFunctions(double p) {
        return Math.max(1, (int) Math.round(-Math.log(p) / LOG_TWO));
    }

    static long roundUpToWord(long bits) {
        return Math.max(64, (bits + 63) / 64 * 64);
    }

    /** The expected false-positive probability once {@code insertions} distinct keys are in: (1 - e^(-kn/m))^k. */
    public double expectedFpp(long insertions) {
        return Math.pow(1 - Math.exp(-(double) hashes * insertions / bits), hashes);
    }

    public long expectedInsertions() {
        return expectedInsertions;
    }

    public double fpp() {
        return fpp;
    }

    /** Number of filter bits, m. */
    public long bits() {
        return bits;
    }

    /** Number of hash functions, k. */
    public int hashes() {
        return hashes;
    }

    /**
     * The offset of the ready marker: the bit just past the filter bits. Only a completed bulk
     * load sets it, so a bitmap without it (lost, half written, or re-created by an add after a
     * flush) is never trusted to say "absent".
     */
    public long markerOffset() {
        return bits;
    }

    /** Bytes of the stored bitmap, marker included. */
    public long byteSize() {
        return bits / 8 + 1;
    }

    /** The geometry's name inside Redis key names, e.g. {@code m9585088k7}. */
    public String id() {
        return "m" + bits + "k" + hashes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FilterGeometry that && bits == that.bits && hashes == that.hashes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(bits, hashes);
    }

    @Override
    public String toString() {
        return "FilterGeometry[n=" + expectedInsertions + ", fpp=" + fpp + ", bits=" + bits + ", hashes=" + hashes + "]";
    }
}
