package dev.bloomguard.spring.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.filter.FilterEvent;
import dev.bloomguard.core.filter.FilterListener;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.warmup.FilterWarmer;

/**
 * The last {@link FilterStatus} of every filter, read from Redis in the background: what the
 * gauges, the health contributor and the {@code bloomguard} endpoint show.
 *
 * <p>The thing not to get wrong: {@link RedisBloomFilter#status()} is a {@code BITCOUNT} over
 * the whole bitmap, which blocks Redis for as long as it takes on a large filter. So it is read
 * once when the context starts, then every {@code refreshInterval} on one daemon thread, and a
 * scrape or health check only reads the cache.
 *
 * <p>In between, it hears the filters' {@link FilterEvent}s ({@link #onEvent}) and reads again,
 * within a second, a filter whose cached status an event made stale: one this instance just
 * loaded ({@link FilterEvent.Loaded}), so its gauges and health do not lag a whole interval behind
 * a warmup or rebuild; and one cached as {@link FilterState#READY} that a check found unable to
 * answer ({@link FilterEvent.NotReady}: Redis lost it, or went back in time), so health does not
 * show it ready while its checks are bypassed. Loads by other instances show at the next interval.
 * The event itself only marks the filter: the read runs on this cache's thread, never the
 * check's, and at most once a second however many checks see the filter not ready.
 *
 * <p>Starts after the {@link FilterWarmer} (so the first read sees blocking warmups done) and
 * before the web server takes traffic.
 */
public final class FilterStatusCache implements SmartLifecycle, FilterListener {

    /** Just after the warmer's phase: its blocking warmups are done when the first read runs. */
    public static final int PHASE = FilterWarmer.PHASE + 1;

    /** How often the filters marked stale by an event are read again. */
    private static final Duration WATCH_PERIOD = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(FilterStatusCache.class);

    /**
     * One read of a filter's status.
     *
     * @param readAt when the read started
     */
    public record Snapshot(FilterStatus status, Instant readAt) {
    }

    private final BloomFilterRegistry registry;
    private final BitmapStore store;
    private final Duration refreshInterval;
    private final Map<String, Snapshot> snapshots = new ConcurrentHashMap<>();
    /** Filters whose cached status an event made stale, read again at the next tick. */
    private final Set<String> stale = ConcurrentHashMap.newKeySet();
    private volatile ScheduledExecutorService scheduler;
    private volatile long lastFullRefresh;

    /**
     * @param store whose circuit breaker to report, or null when there is no single store
     * @param refreshInterval how often every filter is read from Redis
     */
    public FilterStatusCache(BloomFilterRegistry registry, BitmapStore store, Duration refreshInterval) {
        if (refreshInterval == null || refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException("refresh interval (" + refreshInterval + ") must be positive");
        }
        this.registry = registry;
        this.store = store;
        this.refreshInterval = refreshInterval;
    }

    public BloomFilterRegistry registry() {
        return registry;
    }

    /** The last read of {@code filter}; empty before the first read or for an unknown filter. */
    public Optional<Snapshot> snapshot(String filter) {
        return Optional.ofNullable(snapshots.get(filter));
    }

    /**
     * The last read of {@code filter}, read afresh when there is none yet or when an event made
     * it stale since (a load's own result shows at once; another instance's at the next
     * scheduled read).
     *
     * @throws IllegalArgumentException when there is no such filter
     */
    public Snapshot current(String filter) {
        Snapshot cached = snapshots.get(filter);
        if (cached == null) {
            return refresh(filter);
        }
        return stale.remove(filter) ? refresh(filter) : cached;
    }

    /**
     * Marks the event's filter stale when the event says its cached status no longer holds: see
     * the class comment. Returns at once, on whichever thread the filter published on.
     */
    @Override
    public void onEvent(FilterEvent event) {
        String name = event.filter().name();
        if (event instanceof FilterEvent.Loaded) {
            stale.add(name);
        }
        else if (event instanceof FilterEvent.NotReady && !stale.contains(name)) {
            Snapshot cached = snapshots.get(name);
            if (cached != null && cached.status().state() == FilterState.READY) {
                stale.add(name);
            }
        }
    }

    /** The last read of every filter that has been read, in configuration order. */
    public Map<String, Snapshot> snapshots() {
        Map<String, Snapshot> result = new LinkedHashMap<>();
        for (String name : registry.names()) {
            Snapshot snapshot = snapshots.get(name);
            if (snapshot != null) {
                result.put(name, snapshot);
            }
        }
        return Collections.unmodifiableMap(result);
    }

    /**
     * Reads {@code filter}'s status from Redis now (a {@code BITCOUNT}) and caches it: on this
     * cache's schedule, or for a filter it has not read yet; never for each request or scrape.
     *
     * @throws IllegalArgumentException when there is no such filter
     */
    public Snapshot refresh(String filter) {
        RedisBloomFilter bloomFilter = registry.filter(filter);
        Instant readAt = Instant.now();
        Snapshot fresh = new Snapshot(bloomFilter.status(), readAt);
        // Of two reads racing each other, the one that started later wins.
        return snapshots.merge(filter, fresh,
                (cached, candidate) -> candidate.readAt().isBefore(cached.readAt()) ? cached : candidate);
    }

    /** Reads every filter now; a filter that cannot be read keeps its previous snapshot. */
    public void refreshAll() {
        for (RedisBloomFilter filter : registry.asMap().values()) {
            refreshQuietly(filter);
        }
    }

    /** The state of the circuit breaker in front of Redis, when there is a single store to ask. */
    public Optional<CircuitBreaker.State> circuitState() {
        return store == null ? Optional.empty() : Optional.of(store.circuitState());
    }

    private void refreshQuietly(RedisBloomFilter filter) {
        try {
            refresh(filter.name());
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not read its status: {}", filter.name(), ex.toString());
        }
    }

    /** Every interval reads all filters; in between, only those an event made stale. */
    private void tick() {
        long now = System.nanoTime();
        boolean due = now - lastFullRefresh >= refreshInterval.toNanos();
        if (due) {
            lastFullRefresh = now;
        }
        for (RedisBloomFilter filter : registry.asMap().values()) {
            // Unmarked before the read: an event during it marks the filter for the next tick.
            boolean marked = stale.remove(filter.name());
            if (due || marked || !snapshots.containsKey(filter.name())) {
                refreshQuietly(filter);
            }
        }
    }

    @Override
    public void start() {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "bloomguard-status");
            thread.setDaemon(true);
            return thread;
        });
        lastFullRefresh = System.nanoTime();
        refreshAll();
        long period = Math.min(WATCH_PERIOD.toNanos(), refreshInterval.toNanos());
        executor.scheduleWithFixedDelay(() -> {
            try {
                tick();
            }
            catch (RuntimeException ex) {
                log.warn("Could not refresh filter statuses: {}", ex.toString());
            }
        }, period, period, TimeUnit.NANOSECONDS);
        scheduler = executor;
    }

    @Override
    public void stop() {
        ScheduledExecutorService executor = scheduler;
        scheduler = null;
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
