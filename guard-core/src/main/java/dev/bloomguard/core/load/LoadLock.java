package dev.bloomguard.core.load;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.bloomguard.core.context.FilterContext;

/**
 * The cross-instance load lock ({@code FilterKeys#lock}), so that one instance at a time warms or
 * rebuilds a filter: a key holding the holder's instance id, renewed while held, released only by
 * its holder; a crashed holder's lock expires by itself.
 */
public final class LoadLock {

    private final FilterContext filter;

    public LoadLock(FilterContext filter) {
        this.filter = filter;
    }

    /**
     * Takes the lock, renewed every third of {@code ttl} on {@code renewals} until the lease is closed.
     *
     * @return the lease, or empty when another instance holds the lock
     */
    public Optional<Lease> tryLock(Duration ttl, ScheduledExecutorService renewals) {
        String lock = filter.keys().lock();
        if (!filter.store().setIfAbsent(lock, filter.instanceId(), ttl)) {
            return Optional.empty();
        }
        long period = Math.max(1, ttl.toMillis() / 3);
        ScheduledFuture<?> renewal;
        try {
            renewal = renewals.scheduleAtFixedRate(() -> {
                try {
                    if (!filter.store().expireIfEquals(lock, filter.instanceId(), ttl)) {
                        filter.log().warn("Filter '{}': lost the load lock while loading", filter.name());
                    }
                }
                catch (RuntimeException ex) {
                    filter.log().warn("Filter '{}': could not renew the load lock: {}", filter.name(), ex.getMessage());
                }
            }, period, period, TimeUnit.MILLISECONDS);
        }
        catch (RuntimeException ex) {
            filter.store().deleteIfEquals(lock, filter.instanceId());
            throw ex;
        }
        return Optional.of(new Lease(renewal, ttl));
    }

    /** The instance holding the lock, if any. */
    public Optional<String> holder() {
        return filter.store().get(filter.keys().lock());
    }

    /** A held lock; closing it stops the renewals and releases the lock if still ours. */
    public final class Lease implements AutoCloseable {

        private final ScheduledFuture<?> renewal;
        private final Duration ttl;

        private Lease(ScheduledFuture<?> renewal, Duration ttl) {
            this.renewal = renewal;
            this.ttl = ttl;
        }

        @Override
        public void close() {
            renewal.cancel(false);
            try {
                filter.store().deleteIfEquals(filter.keys().lock(), filter.instanceId());
            }
            catch (RuntimeException ex) {
                filter.log().warn("Filter '{}': could not release the load lock ({}); it expires within {}",
                        filter.name(), ex.getMessage(), ttl);
            }
        }
    }
}
