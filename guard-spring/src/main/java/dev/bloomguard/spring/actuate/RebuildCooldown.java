package dev.bloomguard.spring.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Per filter, the time since the endpoint last started a rebuild: a rebuild reads the whole
 * warmup table, so a client repeating its POST must not make the database do it again and again.
 * Kept by each instance for the requests it serves.
 *
 * <p>The thing not to get wrong: only a rebuild that was started counts. A request that is
 * refused does not push the cooldown further out, and a claim whose rebuild did not start
 * after all (no such filter, nothing to rebuild from) is {@linkplain #cancel given back}.
 */
final class RebuildCooldown {

    private final long cooldownNanos;
    private final LongSupplier nanoTime;
    /** Per filter, the {@link System#nanoTime()} of the last rebuild started. */
    private final Map<String, Long> started = new ConcurrentHashMap<>();

    /**
     * @param cooldown how long after a rebuild of a filter the next is refused; zero refuses none
     * @param nanoTime the clock, {@code System::nanoTime} but in tests
     */
    RebuildCooldown(Duration cooldown, LongSupplier nanoTime) {
        if (cooldown == null || cooldown.isNegative()) {
            throw new IllegalArgumentException("rebuild cooldown (" + cooldown + ") must not be negative");
        }
        this.cooldownNanos = cooldown.toNanos();
        this.nanoTime = nanoTime;
    }

    /**
     * Claims a rebuild of {@code filter}: its cooldown starts now, unless one is still running.
     *
     * @return empty when the rebuild may start, otherwise how long until it may
     */
    Optional<Duration> start(String filter) {
        long now = nanoTime.getAsLong();
        long[] remaining = new long[1];
        started.compute(filter, (name, last) -> {
            if (last != null && now - last < cooldownNanos) {
                remaining[0] = cooldownNanos - (now - last);
                return last;
            }
            return now;
        });
        return remaining[0] > 0 ? Optional.of(Duration.ofNanos(remaining[0])) : Optional.empty();
    }

    /** Gives back the claim of {@link #start}: the rebuild did not start. */
    void cancel(String filter) {
        started.remove(filter);
    }
}
