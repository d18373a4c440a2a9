package dev.bloomguard.core;

/**
 * A load read far fewer keys than the live filter holds, so it was not swapped in: the live
 * filter stays as it was. An empty restored replica, a wrong schema or a broken query look like
 * this, and swapping such a load in would block every real key. Force the load when the drop is real.
 */
public final class LoadRefusedException extends RuntimeException {

    private final long keys;
    private final long liveKeys;

    public LoadRefusedException(String filter, long keys, long liveKeys, double maxShrink) {
        super(String.format("load of filter '%s' read %d keys, %.0f%% fewer than the %d the live filter holds"
                + " (more than the max-shrink of %.0f%%); the live filter is kept", filter, keys,
                100.0 * (liveKeys - keys) / liveKeys, liveKeys, 100 * maxShrink));
        this.keys = keys;
        this.liveKeys = liveKeys;
    }

    /** Keys the refused load read. */
    public long keys() {
        return keys;
    }

    /** Keys the live filter holds: those of its load plus the adds journaled since. */
    public long liveKeys() {
        return liveKeys;
    }
}
