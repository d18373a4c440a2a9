package dev.bloomguard.core.filter;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;

/**
 * A generation auto-resize grew a filter into, handed to
 * {@link RedisBloomFilter.Builder#onResizedToLoad} to be loaded from the filter's own source. It is
 * a part of {@link #filter()}, not a filter of its own: it has the filter's name, key type and
 * hash and a larger geometry, it is written to by every add of the filter, and it answers the
 * filter's checks once a load of it covers every instance. Load it as the filter is loaded:
 * {@link #tryLockForLoad}, then {@link #beginLoad} before the source takes its snapshot, with the
 * keys the source gives for {@link #filter()}.
 */
public final class GrownGeneration {

    private final RedisBloomFilter filter;
    private final FilterParts parts;

    GrownGeneration(RedisBloomFilter filter, FilterParts parts) {
        this.filter = filter;
        this.parts = parts;
    }

    /** The filter this generation is a part of: its name, key type and hash are this generation's. */
    public RedisBloomFilter filter() {
        return filter;
    }

    public String name() {
        return parts.name();
    }

    /** The larger geometry auto-resize chose. */
    public FilterGeometry geometry() {
        return parts.geometry();
    }

    public FilterKeys keys() {
        return parts.keys();
    }

    /** Begins a load of this generation; see {@link FilterOperations#beginLoad}. */
    public RedisBloomFilter.PendingLoad beginLoad() {
        return new RedisBloomFilter.PendingLoad(parts.loader.begin());
    }

    /** This generation's load lock (its own: another instance may load the filter's own generation meanwhile). */
    public Optional<RedisBloomFilter.LoadLease> tryLockForLoad(Duration ttl, ScheduledExecutorService renewals) {
        return parts.lock.tryLock(ttl, renewals).map(RedisBloomFilter.LoadLease::new);
    }

    @Override
    public String toString() {
        return parts.toString();
    }
}
