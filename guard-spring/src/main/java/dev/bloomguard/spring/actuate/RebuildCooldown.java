package dev.bloomguard.spring.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Per filter, whether the endpoint may start another rebuild: a rebuild reads the whole warmup
 * table, so a client repeating its POST must not make the database do it again and again. Kept
 * by each instance for the requests it serves.
 *
 * <p>The things not to get wrong: the cooldown holds while the rebuild it let through runs, and
 * runs again from that rebuild's end, so a rebuild slower than the cooldown is never followed by
 * a chain of others queued behind it; and only a rebuild that was started counts. A request that
 * is refused does not push the cooldown further out, and a claim whose rebuild did not start
 * after all (no such filter, nothing to rebuild from, one running already) is
 * {@linkplain #cancel given back}.
 */
final class RebuildCooldown {

    private final long cooldownNanos;
    private final LongSupplier nanoTime;
    /** Per filter, the last rebuild started. */
    private final Map<String, Claim> claims = new ConcurrentHashMap<>();

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
     * Claims a rebuild of {@code filter}: refused while the last one this cooldown let through
     * runs, and for the cooldown after it started and after it {@linkplain #finished finished}.
     *
     * @return empty when the rebuild may start, otherwise how long at least until it may
     */
    Optional<Duration> start(String filter) {
        if (cooldownNanos == 0) {
            return Optional.empty();
        }
        long now = nanoTime.getAsLong();
        long[] remaining = new long[1];
        claims.compute(filter, (name, last) -> {
            if (last != null && last.running()) {
                remaining[0] = cooldownNanos;
                return last;
            }
            if (last != null && now - last.since() < cooldownNanos) {
                remaining[0] = cooldownNanos - (now - last.since());
                return last;
            }
            return new Claim(now, true);
        });
        return remaining[0] > 0 ? Optional.of(Duration.ofNanos(remaining[0])) : Optional.empty();
    }

    /** The rebuild claimed by {@link #start} has ended, however it ended: the cooldown runs from now. */
    void finished(String filter) {
        long now = nanoTime.getAsLong();
        claims.computeIfPresent(filter, (name, last) -> new Claim(now, false));
    }

    /** Gives back the claim of {@link #start}: the rebuild did not start. */
    void cancel(String filter) {
        claims.remove(filter);
    }

    /** @param since when the rebuild started, or when it ended once not running */
    private record Claim(long since, boolean running) {
    }
}
