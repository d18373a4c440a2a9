package dev.bloomguard.core;

import java.time.Duration;
import java.time.Instant;

/**
 * What one bulk load did.
 *
 * @param filter the filter's name
 * @param keys keys read from the source (nulls skipped)
 * @param replayedAdds adds made while the load ran (or just before), replayed onto the new bitmap
 * @param duration from the first key read to the swap
 * @param finishedAt when the new bitmap went live
 */
public record LoadReport(String filter, long keys, long replayedAdds, Duration duration, Instant finishedAt) {

    /** Keys per second over the whole load, upload and swap included. */
    public double keysPerSecond() {
        double seconds = duration.toNanos() / 1e9;
        return seconds == 0 ? keys : keys / seconds;
    }
}
