package dev.bloomguard.core.mirror;

/**
 * A mirror's counters.
 *
 * @param pages pages in memory
 * @param memoryBytes bytes of pages in memory
 * @param maxMemoryBytes the budget
 * @param hits lookups answered "present" from memory
 * @param misses lookups that found a page missing and went to Redis
 * @param confirmed lookups that found a clear bit and asked Redis before blocking
 * @param hearing whether this instance hears other instances' adds now (its pub/sub subscription
 *     is confirmed and connected); a mirror that trusts its clear bits asks Redis while not
 */
public record MirrorStats(long pages, long memoryBytes, long maxMemoryBytes, long hits, long misses, long confirmed,
        boolean hearing) {
}
