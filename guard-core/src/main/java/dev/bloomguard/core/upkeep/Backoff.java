package dev.bloomguard.core.upkeep;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a retry waits: the first delay doubled at each failed attempt up to a most, then
 * jittered down to between half of that and all of it. Without jitter, instances that failed
 * together (Redis restarted, the database came back) retry together, in lock step, at every
 * step; with it they spread. The thing not to get wrong: the jitter only shortens a delay, so
 * the most a retry waits, which tests and documents state as a bound, is unchanged.
 */
public final class Backoff {

    private final Duration first;
    private final Duration most;

    private Backoff(Duration first, Duration most) {
        this.first = first;
        this.most = most;
    }

    /**
     * @param first the delay before the first retry, positive
     * @param most the longest delay, at least {@code first}
     */
    public static Backoff of(Duration first, Duration most) {
        if (first == null || first.isNegative() || first.isZero()) {
            throw new IllegalArgumentException("first delay (" + first + ") must be positive");
        }
        if (most == null || most.compareTo(first) < 0) {
            throw new IllegalArgumentException("longest delay (" + most + ") must be at least the first (" + first + ")");
        }
        return new Backoff(first, most);
    }

    /** The delay before retry {@code attempt} (1 for the first), in [ceiling / 2, ceiling]: see {@link #ceiling}. */
    public Duration delay(int attempt) {
        long ceiling = ceiling(attempt).toNanos();
        long floor = ceiling / 2;
        return Duration.ofNanos(floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1));
    }

    /** Before jitter: {@code first × 2^(attempt − 1)}, at most the longest delay. */
    public Duration ceiling(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt (" + attempt + ") must be 1 or more");
        }
        Duration ceiling = first;
        for (int i = 1; i < attempt && ceiling.compareTo(most) < 0; i++) {
            ceiling = ceiling.multipliedBy(2);
        }
        return ceiling.compareTo(most) > 0 ? most : ceiling;
    }
}
