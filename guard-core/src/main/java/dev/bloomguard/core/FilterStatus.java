package dev.bloomguard.core;

import java.time.Instant;
import java.util.Optional;

/**
 * A snapshot of one filter as Redis holds it, for the actuator endpoint, health and gauges.
 * Reading it costs a {@code BITCOUNT} over the whole bitmap: poll it, never call it per request.
 *
 * @param bitCount set filter bits, or -1 when Redis could not be read
 * @param fillRatio bitCount / bits
 * @param estimatedFpp fillRatio^k: the false-positive rate the filter has now
 * @param approximateCount distinct keys estimated from the fill: -(m/k) ln(1 - X/m)
 * @param liveSince when the live bitmap was swapped in, by any instance, if known
 * @param liveKeys keys read by the load that produced the live bitmap, or -1 if unknown
 * @param loadedBy the instance that produced the live bitmap, if known
 * @param lockHolder the instance now holding the load lock, if any
 * @param lastLoad the last load this instance completed
 * @param resizedFrom the configured geometry, when {@code geometry} is a larger one that auto-resize
 *     chose and that answers the filter's checks now
 */
public record FilterStatus(String name, FilterGeometry geometry, String key, FilterState state, long bitCount,
        double fillRatio, double estimatedFpp, long approximateCount, Optional<Instant> liveSince, long liveKeys,
        Optional<String> loadedBy, Optional<String> lockHolder, Optional<LoadReport> lastLoad,
        Optional<FilterGeometry> resizedFrom) {

    /**
     * Whether the live filter holds more keys than its {@code expected-insertions}, or its
     * estimated fpp exceeds twice the configured one (adds since the load count towards that):
     * it still blocks only absent keys, but lets more of them through than it was sized to.
     */
    public boolean overCapacity() {
        return overCapacity(geometry, liveKeys, bitCount < 0 ? -1 : estimatedFpp);
    }

    /** {@link #overCapacity()} for {@code keys} loaded (-1: unknown) and a fill-based fpp (-1: unknown). */
    public static boolean overCapacity(FilterGeometry geometry, long keys, double estimatedFpp) {
        return keys > geometry.expectedInsertions() || estimatedFpp > 2 * geometry.fpp();
    }

    /** -(m/k) ln(1 - X/m), the usual estimate of how many distinct keys set X of m bits (m over all shards). */
    public static long approximateCount(long bitCount, FilterGeometry geometry) {
        if (bitCount < 0) {
            return -1;
        }
        double m = geometry.totalBits();
        if (bitCount >= m) {
            return Long.MAX_VALUE;
        }
        return Math.round(-(m / geometry.hashes()) * Math.log(1 - bitCount / m));
    }
}
