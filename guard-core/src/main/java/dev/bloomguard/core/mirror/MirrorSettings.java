package dev.bloomguard.core.mirror;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.time.Duration;

/**
 * How a filter's local mirror behaves.
 *
 * @param maxMemoryBytes the most bitmap bytes kept in memory; a larger filter is mirrored page by page
 * @param refreshAfter a cached page is re-read from Redis this long after it was loaded
 * @param pageBytes bytes per page, the unit of loading and eviction
 * @param trustAbsent answer "absent" from memory without asking Redis; faster, but a key
 *     another instance added a moment ago can be blocked until its bits arrive. Off by default.
 */
public record MirrorSettings(long maxMemoryBytes, Duration refreshAfter, int pageBytes, boolean trustAbsent) {

    /** 64 KiB: 524,288 bits, one {@code GETRANGE} of a size Redis serves in well under a millisecond. */
    public static final int DEFAULT_PAGE_BYTES = 64 * 1024;

    public MirrorSettings {
        checkArgument(maxMemoryBytes >= pageBytes, "local-mirror.max-memory (%s bytes) must hold at least one page (%s bytes)",
                maxMemoryBytes, pageBytes);
        checkArgument(refreshAfter != null && !refreshAfter.isNegative() && !refreshAfter.isZero(),
                "local-mirror.refresh-after (%s) must be positive", refreshAfter);
        checkArgument(refreshAfter.compareTo(Duration.ofMillis(1)) >= 0,
                "local-mirror.refresh-after (%s) must be at least a millisecond", refreshAfter);
        checkArgument(pageBytes >= 64 && pageBytes % 8 == 0, "page size (%s bytes) must be a multiple of 8, at least 64",
                pageBytes);
    }

    /**
     * {@code refreshAfter} in nanoseconds, saturated: past 292 years a long overflows, and a
     * page that old may as well never be re-read (Caffeine saturates its own the same way).
     */
    public long refreshAfterNanos() {
        return refreshAfter.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : refreshAfter.toNanos();
    }

    public static MirrorSettings of(long maxMemoryBytes, Duration refreshAfter) {
        return new MirrorSettings(maxMemoryBytes, refreshAfter, DEFAULT_PAGE_BYTES, false);
    }
}
