package dev.bloomguard.core.rollout;

import java.util.Map;

/**
 * Which of two loads of a filter's generations began later, read from their live metadata: by
 * Redis's clock ({@link #LOAD_BEGAN}, one node's clock for every generation of the filter), or, for
 * a bitmap a release before it loaded, by the loaders' own clocks. A generation answers only when
 * its bitmap was read from the source after the one it replaces.
 */
public final class LoadOrder {

    private LoadOrder() {
    }

    /** The field of a live bitmap's metadata that holds when its load began, by Redis's clock (ms). */
    public static final String LOAD_BEGAN = "loadBegan";

    /** When the load behind {@code meta} began by Redis's clock, or -1 for a bitmap a release before it loaded. */
    static long began(Map<String, String> meta) {
        String began = meta.get(LOAD_BEGAN);
        return began == null ? -1 : Long.parseLong(began);
    }

    /**
     * True when the load behind {@code meta} began no later than the one behind {@code other}
     * (a tie counts as earlier: it is loaded again): by Redis's clock, or, for a bitmap a release
     * before it loaded, by the loaders' clocks.
     */
    static boolean loadedBefore(Map<String, String> meta, Map<String, String> other) {
        if (began(meta) >= 0 && began(other) >= 0) {
            return began(meta) <= began(other);
        }
        long started = started(meta);
        long otherStarted = started(other);
        return started >= 0 && otherStarted >= 0 && started < otherStarted;
    }

    private static long started(Map<String, String> meta) {
        String loadedAt = meta.get("loadedAt");
        String duration = meta.get("durationMs");
        return loadedAt == null || duration == null ? -1 : Long.parseLong(loadedAt) - Long.parseLong(duration);
    }
}
