package dev.bloomguard.core.load;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * One instance's turn at the catch-up of rows written outside the filter's adds (another
 * service, a batch job): one instance of the fleet runs the catch-up query per interval, not
 * every instance, and each run starts where the fleet's last successful run began, by the
 * source's own clock. Kept per filter name and source ({@code <prefix>:v1:{<filter>}:catch-up:<source>}),
 * so that two warmup queries of a rolling change never share where they are.
 *
 * <p>The one thing easy to get wrong: {@link #caughtUp} records a run's start only after every
 * key it read was added. A run that failed, or an instance that died mid-run, records nothing,
 * and the next turn starts from the older time again; an older start only reads rows twice.
 */
public final class CatchUpTurn {

    private static final String SINCE = "since";

    private final BitmapStore store;
    private final String progressKey;

    private CatchUpTurn(BitmapStore store, String progressKey) {
        this.store = store;
        this.progressKey = progressKey;
    }

    /**
     * Takes this interval's turn, unless another instance has it.
     *
     * @throws dev.bloomguard.core.redis.BitmapStoreException when Redis fails: no turn
     */
    public static Optional<CatchUpTurn> tryTake(FilterContext filter, String keyPrefix, String sourceId,
            Duration interval) {
        String progress = FilterKeys.filterWide(keyPrefix, filter.name(), "catch-up:" + sourceId);
        if (!filter.store().setIfAbsent(progress + ":turn", filter.instanceId(), interval)) {
            return Optional.empty();
        }
        return Optional.of(new CatchUpTurn(filter.store(), progress));
    }

    /** Where the fleet's last successful run began, by the source's clock; empty before any. */
    public Optional<Instant> since() {
        String since = store.hashGetAll(progressKey).get(SINCE);
        return since == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(since)));
    }

    /** A run that began at {@code started} (the source's clock) added every key it read: the next starts there. */
    public void caughtUp(Instant started) {
        store.hashSet(progressKey, SINCE, Long.toString(started.toEpochMilli()));
    }
}
