package dev.bloomguard.core;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

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

    /** Cluster hash slots: more shards than this could not all have slots of their own. */
    public static final int MAX_SHARDS = 16_384;

    private static final double LOG_TWO = Math.log(2);

    private final long expectedInsertions;
    private final double fpp;
    private final long bits;
    private final int hashes;
    private final int shards;

    private FilterGeometry(long expectedInsertions, double fpp, long bits, int hashes, int shards) {
        this.expectedInsertions = expectedInsertions;
        this.fpp = fpp;
        this.bits = bits;
        this.hashes = hashes;
        this.shards = shards;
    }

    /**
     * Sizes a filter for {@code expectedInsertions} keys at false-positive probability {@code fpp}.
     *
     * @throws IllegalArgumentException naming the bad value, or when the filter would not fit one
     *     Redis string
     */
    public static FilterGeometry of(long expectedInsertions, double fpp) {
        validate(expectedInsertions, fpp);
        long rawBits = optimalNumOfBits(expectedInsertions, fpp);
        checkArgument(rawBits <= MAX_BITS,
                "a filter of %s expected insertions at fpp %s needs %s bits, more than one Redis string holds (%s);"
                        + " shard it", expectedInsertions, fpp, rawBits, MAX_BITS);
        return new FilterGeometry(expectedInsertions, fpp, roundUpToWord(rawBits), optimalNumOfHashFunctions(fpp), 1);
    }

    /**
     * Sizes a filter split into as few shards as keep each under {@code maxShardBits}. A filter
     * that fits one shard has exactly the geometry (and Redis keys) of {@link #of(long, double)}.
     */
    public static FilterGeometry sharded(long expectedInsertions, double fpp, long maxShardBits) {
        validate(expectedInsertions, fpp);
        checkArgument(maxShardBits >= 64 && maxShardBits <= MAX_BITS, "maximum shard size (%s bits) must be in [64, %s]",
                maxShardBits, MAX_BITS);
        long rawBits = optimalNumOfBits(expectedInsertions, fpp);
        long shards = Math.max(1, rawBits / maxShardBits + (rawBits % maxShardBits == 0 ? 0 : 1));
        checkArgument(shards <= MAX_SHARDS, "a filter of %s expected insertions at fpp %s needs %s shards of %s bits,"
                + " more than %s", expectedInsertions, fpp, shards, maxShardBits, MAX_SHARDS);
        return withShards(expectedInsertions, fpp, (int) shards);
    }

    /**
     * Sizes a filter split into exactly {@code shards} shards of equal size. Each key lives
     * wholly in one shard (its k bits and the shard's marker), so a check reads one key.
     */
    public static FilterGeometry withShards(long expectedInsertions, double fpp, int shards) {
        validate(expectedInsertions, fpp);
        checkArgument(shards >= 1 && shards <= MAX_SHARDS, "shards (%s) must be in [1, %s]", shards, MAX_SHARDS);
        long rawBits = optimalNumOfBits(expectedInsertions, fpp);
        long perShard = (rawBits + shards - 1) / shards;
        checkArgument(perShard <= MAX_BITS, "%s shards of a filter of %s bits hold %s bits each, more than one Redis"
                + " string holds (%s); use more shards", shards, rawBits, perShard, MAX_BITS);
        return new FilterGeometry(expectedInsertions, fpp, roundUpToWord(perShard), optimalNumOfHashFunctions(fpp),
                shards);
    }

    private static void validate(long expectedInsertions, double fpp) {
        checkArgument(expectedInsertions >= 1, "expected-insertions (%s) must be at least 1", expectedInsertions);
        checkArgument(fpp > 0.0 && fpp < 1.0, "fpp (%s) must be in (0, 1)", fpp);
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

    /**
     * The expected false-positive probability once {@code insertions} distinct keys are in:
     * (1 - e^(-kn/m))^k, per shard (each shard holds about n / shards keys in m bits).
     */
    public double expectedFpp(long insertions) {
        return Math.pow(1 - Math.exp(-(double) hashes * insertions / shards / bits), hashes);
    }

    public long expectedInsertions() {
        return expectedInsertions;
    }

    public double fpp() {
        return fpp;
    }

    /** Number of filter bits per shard, m (the whole filter when it has one shard). */
    public long bits() {
        return bits;
    }

    /** Number of shards; each is its own Redis key. */
    public int shards() {
        return shards;
    }

    /** Filter bits over all shards. */
    public long totalBits() {
        return bits * shards;
    }

    /** Bytes of all shards' bitmaps, markers included. */
    public long totalByteSize() {
        return byteSize() * shards;
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

    /** Bytes of one shard's stored bitmap, marker included. */
    public long byteSize() {
        return bits / 8 + 1;
    }

    /** The geometry's name inside Redis key names, e.g. {@code m9585088k7}, or {@code m...k7s12} when sharded. */
    public String id() {
        return "m" + bits + "k" + hashes + (shards == 1 ? "" : "s" + shards);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FilterGeometry that && bits == that.bits && hashes == that.hashes
                && shards == that.shards;
    }

    @Override
    public int hashCode() {
        return Objects.hash(bits, hashes, shards);
    }

    @Override
    public String toString() {
        return "FilterGeometry[n=" + expectedInsertions + ", fpp=" + fpp + ", bits=" + bits + ", hashes=" + hashes
                + (shards == 1 ? "" : ", shards=" + shards) + "]";
    }
}
