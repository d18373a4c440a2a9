package dev.bloomguard.core.status;

import java.util.Map;
import java.util.Optional;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.check.FilterChecks;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.load.FilterLoader;
import dev.bloomguard.core.load.LiveMeta;
import dev.bloomguard.core.load.LoadLock;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * A filter's state as an operator sees it, read from Redis: a {@code BITCOUNT} over the whole
 * bitmap plus a few small reads. For operators (actuator, health); never on a request path. A
 * Redis that does not answer gives a {@link FilterState#DEGRADED} status with unknown counts, not
 * an exception.
 */
public final class StatusReader {

    private final FilterContext filter;
    private final FilterChecks checks;
    private final FilterLoader loader;
    private final LoadLock lock;
    /** The configured geometry when this generation is a larger one auto-resize chose earlier; else null. */
    private final FilterGeometry resizedFrom;

    public StatusReader(FilterContext filter, FilterChecks checks, FilterLoader loader, LoadLock lock,
            FilterGeometry resizedFrom) {
        this.filter = filter;
        this.checks = checks;
        this.loader = loader;
        this.lock = lock;
        this.resizedFrom = resizedFrom;
    }

    public FilterStatus read() {
        FilterGeometry geometry = filter.geometry();
        long bitCount = -1;
        LiveMeta meta = LiveMeta.of(Map.of());
        Optional<String> holder = Optional.empty();
        boolean ready = false;
        try {
            int readyShards = checks.readyShards();
            ready = readyShards == geometry.shards();
            long total = 0;
            for (int shard = 0; shard < geometry.shards(); shard++) {
                total += filter.store().bitCount(filter.keys().live(shard));
            }
            bitCount = total - readyShards;
            meta = LiveMeta.read(filter);
            holder = lock.holder();
        }
        catch (BitmapStoreException ex) {
            filter.log().debug("Filter '{}': status unreadable: {}", filter.name(), ex.getMessage());
        }
        FilterState state = ready ? FilterState.READY
                : loader.isLoading() || holder.isPresent() ? FilterState.WARMING : FilterState.DEGRADED;
        double fill = bitCount < 0 ? -1 : (double) bitCount / geometry.totalBits();
        return new FilterStatus(filter.name(), geometry, filter.keys().live(), state, bitCount, fill,
                fill < 0 ? -1 : Math.pow(fill, geometry.hashes()), FilterStatus.approximateCount(bitCount, geometry),
                meta.loadedAt(), meta.keys().orElse(-1L), meta.loadedBy(), holder, loader.lastLoad(),
                Optional.ofNullable(resizedFrom));
    }

    /**
     * The status of a filter whose grown generation answers: that generation's, which is the
     * filter as it is now, with this one's own last load and configured geometry.
     */
    public FilterStatus resized(FilterStatus grown) {
        return new FilterStatus(filter.name(), grown.geometry(), grown.key(), grown.state(), grown.bitCount(),
                grown.fillRatio(), grown.estimatedFpp(), grown.approximateCount(), grown.liveSince(), grown.liveKeys(),
                grown.loadedBy(), grown.lockHolder(), loader.lastLoad(),
                Optional.of(resizedFrom == null ? filter.geometry() : resizedFrom));
    }
}
