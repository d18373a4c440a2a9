package dev.bloomguard.spring.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.mirror.MirrorStats;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.warmup.FilterWarmer;

/**
 * The {@code bloomguard} actuator endpoint: every filter's state, geometry, counts and last
 * warmup ({@code GET /actuator/bloomguard}), one filter ({@code GET /actuator/bloomguard/{filter}})
 * and an on-demand rebuild from the filter's key source ({@code POST /actuator/bloomguard/{filter}}).
 *
 * <p>Reads show the {@link FilterStatusCache}'s last read (its {@code statusReadAt} says when),
 * so a dashboard polling them never makes Redis count bits. What this instance knows by itself
 * (its last load, whether it is warming the filter, the circuit breaker) is always current.
 *
 * <p>Nothing is reachable over HTTP until the application exposes the endpoint
 * ({@code management.endpoints.web.exposure.include}), and then only its reads: the rebuild, a
 * write operation that makes the database read a whole table, needs
 * {@code management.endpoint.bloomguard.access=unrestricted}. Once granted, a filter rebuilt
 * through the endpoint is not rebuilt again through it for {@code bloom-guard.endpoint.rebuild-cooldown}
 * (HTTP 429 meanwhile). Failure reasons are shown in general terms: a database's error can quote
 * the rows it failed on, so its words stay in the application log.
 */
@Endpoint(id = "bloomguard", defaultAccess = Access.READ_ONLY)
public final class BloomGuardEndpoint {

    /** The reason shown for a load that failed; the log has the cause. */
    public static final String LOAD_FAILED = "The load failed; the application log has the cause";

    /** The reason shown for a load refused as too small; the log has the counts. */
    public static final String LOAD_REFUSED = "The load read far fewer keys than the live filter holds and was"
            + " refused (rebuild.max-shrink); the application log has the counts";

    /** Why a rebuild did not start: Redis failed, when asked whether the fleet may rebuild now. */
    public static final String REDIS_FAILED = "Redis failed when asked whether the fleet may rebuild the filter now;"
            + " the application log has the cause";


    private final FilterStatusCache statuses;
    private final BloomFilterRegistry registry;
    private final FilterWarmer warmer;
    private final RebuildRequests rebuilds;

    /**
     * @param warmer what rebuilds filters, or null when the application has none (rebuilds are
     *     then refused)
     * @param rebuildCooldown how long after a rebuild of a filter through this endpoint the next
     *     one is refused; zero refuses none
     */
    public BloomGuardEndpoint(FilterStatusCache statuses, FilterWarmer warmer, Duration rebuildCooldown) {
        this.statuses = statuses;
        this.registry = statuses.registry();
        this.warmer = warmer;
        this.rebuilds = new RebuildRequests(registry, warmer, rebuildCooldown);
    }

    /** Every filter, in configuration order, from the cached statuses. */
    @ReadOperation
    public FiltersDescriptor filters() {
        Map<String, FilterDescriptor> filters = new LinkedHashMap<>();
        for (RedisBloomFilter filter : registry.asMap().values()) {
            filters.put(filter.name(), describe(filter, cached(filter.name())));
        }
        return new FiltersDescriptor(filters);
    }

    /** One filter, from its cached status; {@code null} (HTTP 404) when there is no such filter. */
    @ReadOperation
    public FilterDescriptor filter(@Selector String filter) {
        if (!registry.contains(filter)) {
            return null;
        }
        return describe(registry.filter(filter), cached(filter));
    }

    /** The cached status; read when there is none yet or this instance loaded the filter since. */
    private FilterStatusCache.Snapshot cached(String filter) {
        return statuses.current(filter);
    }

    /**
     * Starts a rebuild of {@code filter} from its key source and returns at once; the load runs
     * in the background under the cross-instance load lock, and its result shows as the filter's
     * {@code lastLoad}. A rebuild (or warmup) already running in this instance is not started twice.
     * A load that reads far fewer keys than the live filter holds is refused (it shows as
     * {@code lastFailure}); {@code FilterWarmer.rebuild(filter, true)} forces one. A parameter here
     * would make the POST need a JSON body.
     *
     * <p>While a rebuild this endpoint started for {@code filter} runs, and for the cooldown after
     * it started and after it ended, the answer is HTTP 429 with {@code retryAfter}, and nothing
     * starts; the same holds for the fleet: a rebuild any instance's endpoint started takes the
     * fleet's turn in Redis, so a client repeating its POST through a load balancer
     * still gets one rebuild per cooldown. A request that finds another load of the filter running,
     * in this instance or another (a warmup, a scheduled rebuild, a rebuild past its cooldown),
     * starts nothing, neither now nor queued behind it, and so no cooldown either.
     *
     * @throws InvalidEndpointRequestException (HTTP 400) when there is no such filter or it has no
     *     key source to rebuild from
     */
    @WriteOperation
    public WebEndpointResponse<RebuildDescriptor> rebuild(@Selector String filter) {
        if (warmer == null) {
            throw new InvalidEndpointRequestException("No FilterWarmer in this application",
                    "This application has no FilterWarmer to rebuild filters with");
        }
        return rebuilds.rebuild(filter);
    }

    /** Stops keeping the fleet's turns of the rebuilds this endpoint started (the context closes). */
    public void close() {
        rebuilds.close();
    }

    private FilterDescriptor describe(RedisBloomFilter filter, FilterStatusCache.Snapshot snapshot) {
        FilterStatus status = snapshot.status();
        boolean readable = status.bitCount() >= 0;
        return new FilterDescriptor(filter.name(), status.state(), GeometryDescriptor.of(status.geometry()),
                status.key(), readable ? status.bitCount() : null, readable ? status.fillRatio() : null,
                readable ? status.estimatedFpp() : null, readable ? status.approximateCount() : null,
                status.liveSince().orElse(null), status.liveKeys() >= 0 ? status.liveKeys() : null,
                status.loadedBy().orElse(null), status.lockHolder().orElse(null), snapshot.readAt(),
                filter.instanceId(), filter.lastLoad().map(LoadDescriptor::of).orElse(null),
                warmer != null && warmer.isWarming(filter.name()),
                warmer == null ? null : warmer.lastFailure(filter.name()).map(FailureDescriptor::of).orElse(null),
                statuses.circuitState().orElse(null), filter.mirrorStats().orElse(null),
                warmer == null ? null : warmer.sourceDescription(filter.name()).orElse(null), filter.holds());
    }

    /** Every filter by name. */
    public record FiltersDescriptor(Map<String, FilterDescriptor> filters) implements OperationResponseBody {
    }

    /**
     * One filter. Values Redis did not give (unreadable, never loaded) are left out.
     *
     * @param state READY (checks can block), WARMING or DEGRADED (checks are bypassed)
     * @param key the Redis key of the live bitmap
     * @param bitCount set filter bits
     * @param fillRatio bitCount / bits
     * @param estimatedFpp the false-positive rate the filter has now
     * @param approximateCount distinct keys estimated from the fill
     * @param liveSince when the live bitmap was swapped in, by any instance
     * @param liveKeys keys read by the load that produced the live bitmap
     * @param loadedBy the instance that produced the live bitmap
     * @param lockHolder the instance now holding the load lock
     * @param statusReadAt when the values above were read from Redis
     * @param instance this instance's name in load locks and {@code loadedBy}
     * @param lastLoad the last load this instance completed
     * @param warming whether this instance is loading the filter now
     * @param lastFailure why this instance's last load failed or was refused, until one succeeds
     * @param circuit the circuit breaker in front of Redis: CLOSED, OPEN or HALF_OPEN
     * @param mirror the local mirror's pages, memory and lookups, when the filter has one
     * @param source what the filter is loaded from ({@code warmup.sql}, or the key source bean's
     *     description), when anything loads it
     * @param holds why this instance does not block a clear bit now, read at this request, not
     *     cached: {@code PENDING_ADDS} (adds Redis refused are being retried), {@code FOREIGN_SOURCE}
     *     (the live bitmap may come from another warmup query), {@code REWOUND} (Redis went back in
     *     time); empty when none is held
     */
    public record FilterDescriptor(String name, FilterState state, GeometryDescriptor geometry, String key,
            Long bitCount, Double fillRatio, Double estimatedFpp, Long approximateCount, Instant liveSince,
            Long liveKeys, String loadedBy, String lockHolder, Instant statusReadAt, String instance,
            LoadDescriptor lastLoad, boolean warming, FailureDescriptor lastFailure, CircuitBreaker.State circuit,
            MirrorStats mirror, String source, Set<Hold> holds) implements OperationResponseBody {
    }

    /**
     * The filter's shape.
     *
     * @param bits m, the number of filter bits
     * @param hashes k, the number of hash functions
     */
    public record GeometryDescriptor(long expectedInsertions, double fpp, long bits, int hashes) {

        static GeometryDescriptor of(FilterGeometry geometry) {
            return new GeometryDescriptor(geometry.expectedInsertions(), geometry.fpp(), geometry.bits(),
                    geometry.hashes());
        }
    }

    /**
     * A load this instance completed.
     *
     * @param keys keys (rows) read from the source
     * @param replayedAdds adds made while the load ran, replayed onto the new bitmap
     * @param duration from the first key read to the swap
     * @param finishedAt when the new bitmap went live
     */
    public record LoadDescriptor(long keys, long replayedAdds, Duration duration, Instant finishedAt) {

        static LoadDescriptor of(LoadReport report) {
            return new LoadDescriptor(report.keys(), report.replayedAdds(), report.duration(), report.finishedAt());
        }
    }

    /**
     * Why this instance's last load of a filter failed, in terms safe to show to anyone who may
     * read the endpoint: never the exception's text, which for a warmup query can quote rows.
     *
     * @param reason {@link #LOAD_REFUSED} or {@link #LOAD_FAILED}
     * @param at when
     */
    public record FailureDescriptor(String reason, Instant at) {

        static FailureDescriptor of(FilterWarmer.Failure failure) {
            return new FailureDescriptor(failure.refused() ? LOAD_REFUSED : LOAD_FAILED, failure.at());
        }
    }

    /**
     * What a rebuild request did.
     *
     * @param rebuild {@code started}, {@code already-running} (a load of this filter was running
     *     here or in another instance; it is not started twice), {@code failed} (HTTP 503 when Redis
     *     failed before it started) or {@code cooling-down} (HTTP 429: this endpoint, or another
     *     instance's, started a rebuild of the filter within {@code bloom-guard.endpoint.rebuild-cooldown})
     * @param reason why it failed, in general terms: {@link #LOAD_FAILED} or {@link #REDIS_FAILED}
     * @param retryAfter how long until a rebuild of the filter may be asked for again, when cooling
     *     down (for a rebuild another instance started, the whole cooldown: at most that long)
     */
    public record RebuildDescriptor(String filter, String rebuild, String reason, Duration retryAfter)
            implements OperationResponseBody {
    }
}
