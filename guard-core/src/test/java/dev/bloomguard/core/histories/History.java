package dev.bloomguard.core.histories;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.IncompleteLoadException;
import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.core.rollout.FilterGenerations;

/**
 * One history of {@code OperationalHistoriesTests}: three instances of one filter on a real
 * Redis, the rows and the keys the filter knows (the model) and what the steps did to Redis. Heartbeats run on their
 * own thread, every {@link #HEARTBEAT}, as the starter's do; the rest of the upkeep (rewind
 * checks, journal upkeep) is a step of its own, so that a history says when it ran.
 */
public final class History implements AutoCloseable {

    public static final int INSTANCES = 3;

    /**
     * What instance 2 runs beside the others' configuration: the same, or a rolling change of it.
     * {@link #OTHER_KEY_TYPE} (integer keys beside keys by Java type) names the same Redis keys
     * under another generation: while both run, neither generation answers (they bypass), so
     * such a history is checked for false negatives but not expected to block at its end.
     */
    public enum Variant {
        ONE_CONFIGURATION, OTHER_GEOMETRY, OTHER_KEY_TYPE;

        public boolean blocksDuringTheChange() {
            return this != OTHER_KEY_TYPE;
        }
    }

    /** Every check of a known key, over all histories; and those answered ABSENT. */
    public static final AtomicLong COMMITTED_CHECKS = new AtomicLong();
    public static final AtomicLong FALSE_NEGATIVES = new AtomicLong();

    static final String LOOKUP = "Users#find";
    private static final Duration HEARTBEAT = Duration.ofMillis(50);
    private static final Duration GRACE = Duration.ofSeconds(1);
    private static final Duration RETENTION = Duration.ofMillis(150);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final AtomicLong NAMES = new AtomicLong();

    private final HistoryRedis redis;
    private final List<RedisBloomFilter> instances = new ArrayList<>();
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "history-heartbeats");
        thread.setDaemon(true);
        return thread;
    });
    /** Every row in the database: added through the filter, or written behind the guard's back. */
    final Set<Long> rows = new TreeSet<>();
    /**
     * Per generation (0: instances 0 and 1; 1: instance 2, when it runs another configuration),
     * the rows a load of it read. A row written behind the guard's back is known to the filter
     * once a load of every generation an instance may answer from read it.
     */
    private final List<Set<Long>> loaded = List.of(new TreeSet<>(), new TreeSet<>());
    /** The rows whose add returned: known to every generation. */
    final Set<Long> committed = new TreeSet<>();
    private final boolean twoGenerations;
    /** Whether instance 0 blocks absent keys at the end: not while a fleet runs two key types. */
    private final boolean blocksAtTheEnd;
    /** Every key and its value (DUMP) and time to live at the last snapshot, by node; null before one. */
    private List<Map<byte[], Object[]>> snapshot;
    /** Redis went back in time, and no rewind check of every instance has run since. */
    boolean rewoundSinceUpkeep;
    /** Whether Redis refuses writes now ({@code min-replicas-to-write}). */
    private boolean refusing;

    private final String name;
    /** On a Redis Cluster, three shards: the filter's bitmaps, journals and counts spread over the masters. */
    private final FilterGeometry geometry;

    private History(HistoryRedis redis, Variant variant) {
        this.redis = redis;
        this.twoGenerations = variant != Variant.ONE_CONFIGURATION;
        this.blocksAtTheEnd = variant.blocksDuringTheChange();
        this.geometry = geometry(redis, 2_000);
        redis.configSet("min-replicas-to-write", "0");
        redis.flushAll();
        this.name = "history" + NAMES.incrementAndGet();
        for (int instance = 0; instance < INSTANCES; instance++) {
            RedisBloomFilter.Builder builder = builder(LettuceBitmapStore.create(redis.connections(), TIMEOUT),
                    variant == Variant.OTHER_GEOMETRY && instance == 2 ? geometry(redis, 4_000) : geometry)
                    .instanceId(name + "-" + instance);
            if (variant == Variant.OTHER_KEY_TYPE && instance == 2) {
                builder.keyType(KeyType.INTEGER);
            }
            if (instance == 0) {
                builder.rememberMisses(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, true));
            }
            if (instance == 1) {
                builder.mirror(MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
            }
            instances.add(builder.build());
        }
        heartbeatAll();
        heartbeats.scheduleWithFixedDelay(this::heartbeatAll, HEARTBEAT.toMillis(), HEARTBEAT.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** A history on {@code redis}, whose keys it flushes first; {@code redis} outlives it. */
    public static History start(HistoryRedis redis, Variant variant) {
        return new History(redis, variant);
    }

    private static FilterGeometry geometry(HistoryRedis redis, long expectedInsertions) {
        return redis.isCluster() ? FilterGeometry.withShards(expectedInsertions, 0.01, 3)
                : FilterGeometry.of(expectedInsertions, 0.01);
    }

    private RedisBloomFilter.Builder builder(BitmapStore store, FilterGeometry geometry) {
        return RedisBloomFilter.builder(name, geometry, store).checkTimeout(TIMEOUT).journalRetention(RETENTION)
                .loadHold(Duration.ofMillis(600)).rollout(HEARTBEAT, GRACE);
    }

    /**
     * A loader that died mid-load: it began a load (its mark in the journal, its hold on it) on a
     * connection of its own, which then goes away without a word; nothing renews its hold.
     */
    void killedLoader() {
        LettuceConnections own = redis.connectOwn();
        try {
            builder(LettuceBitmapStore.create(own, TIMEOUT), geometry).instanceId(name + "-killed").build().beginLoad();
        }
        catch (BitmapStoreException | IllegalStateException ex) {
            // Redis refused it, or before the first heartbeat: nothing began
        }
        finally {
            own.close();
        }
    }

    RedisBloomFilter instance(int index) {
        return instances.get(index);
    }

    void refuseWrites(boolean refuse) {
        refusing = refuse;
        redis.configSet("min-replicas-to-write", refuse ? "1" : "0");
    }

    /** What an operator (or Redis itself) does to the data whether or not clients' writes are refused. */
    void asOperator(Runnable action) {
        redis.configSet("min-replicas-to-write", "0");
        try {
            action.run();
        }
        finally {
            redis.configSet("min-replicas-to-write", refusing ? "1" : "0");
        }
    }

    void flush() {
        asOperator(redis::flushAll);
    }

    void snapshot() {
        snapshot = redis.dump();
    }

    /** Redis restarted from the last snapshot: every key as it was then, the rest gone. */
    void backInTime() {
        if (snapshot == null) {
            return;
        }
        asOperator(() -> {
            redis.flushAll();
            // Replacing: a heartbeat may have written its key again since the flush.
            redis.restore(snapshot);
        });
        rewoundSinceUpkeep = true;
    }

    /**
     * The upkeep the starter schedules, on every instance: a rewind check and journal upkeep.
     * Redis refusing writes may keep a rewind check from acting: it then still counts as not run.
     */
    void upkeep() {
        boolean allChecked = true;
        for (RedisBloomFilter instance : instances) {
            try {
                instance.verifyNotBehind();
                instance.maintainJournal();
            }
            catch (BitmapStoreException ex) {
                allChecked = false;
            }
        }
        if (allChecked) {
            rewoundSinceUpkeep = false;
        }
    }

    void waitPastRetention() {
        sleep(RETENTION.multipliedBy(2));
    }

    void load(int index) {
        load(index, List.copyOf(rows));
    }

    /** A row inserted by another service, a batch job or plain SQL: no add, no catch-up. */
    void insertBehindTheGuard(long key) {
        rows.add(key);
    }

    void added(long key) {
        rows.add(key);
        committed.add(key);
    }

    /** The keys no instance may answer ABSENT for. */
    private List<Long> known() {
        Set<Long> known = new TreeSet<>(committed);
        Set<Long> read = new TreeSet<>(loaded.get(0));
        if (twoGenerations) {
            read.retainAll(loaded.get(1));
        }
        known.addAll(read);
        return List.copyOf(known);
    }

    /**
     * A load whose source is broken (a view redefined by mistake, a replica being re-seeded): it
     * returns none of the rows. Played only once some generation of the filter was
     * loaded, as the README's one exception says: a first load has nothing to compare with.
     */
    void brokenLoad(int index) {
        if (!rows.isEmpty() && instances.stream().anyMatch(instance -> liveSince(instance))) {
            load(index, List.of());
        }
    }

    private static boolean liveSince(RedisBloomFilter instance) {
        try {
            return instance.liveSince().isPresent();
        }
        catch (BitmapStoreException ex) {
            return false;
        }
    }

    private void load(int index, List<Long> source) {
        try {
            instance(index).load(source.stream());
            loaded.get(twoGenerations && index == 2 ? 1 : 0).addAll(source);
        }
        catch (LoadRefusedException | IncompleteLoadException | BitmapStoreException ex) {
            // not swapped in: the live filter stays as it was
        }
    }

    /**
     * Asserts that no known key is answered ABSENT by {@code index}, nor rejected there as a
     * remembered miss, once the README's bound for the day has passed: after Redis went back in
     * time, once every instance's rewind check ran. Before that nothing is asserted.
     */
    void check(int index) {
        if (rewoundSinceUpkeep) {
            upkeep();
            if (rewoundSinceUpkeep) {
                return;
            }
        }
        RedisBloomFilter instance = instance(index);
        List<Long> keys = known();
        List<Membership> answers = instance.checkAll(keys);
        for (int i = 0; i < keys.size(); i++) {
            COMMITTED_CHECKS.incrementAndGet();
            if (answers.get(i) == Membership.ABSENT) {
                FALSE_NEGATIVES.incrementAndGet();
                throw new AssertionError("known key " + keys.get(i) + " answered ABSENT by instance " + index);
            }
            if (answers.get(i) == Membership.PRESENT && instance.rememberedMisses().isPresent()
                    && instance.isRememberedMissAsync(keys.get(i), LOOKUP).join()) {
                FALSE_NEGATIVES.incrementAndGet();
                throw new AssertionError("known key " + keys.get(i) + " rejected as a remembered miss by instance "
                        + index);
            }
        }
    }

    /**
     * The end of the history: Redis takes writes, a rewind check and a load of every row
     * (after a journal retention, so that the load covers every writer), then every instance is
     * checked. Whether instance 0 then blocks most keys nobody added.
     */
    public boolean settle() {
        refuseWrites(false);
        long blocked = 0;
        // A rollout may need a heartbeat round after a load before a generation answers again
        // (one found left unwritten after Redis went back in time): a few rounds at most, and one
        // where no round would make instance 0 block (a fleet of two key types never does).
        int rounds = blocksAtTheEnd ? 4 : 1;
        for (int round = 0; round < rounds && blocked < 180; round++) {
            upkeep();
            sleep(RETENTION.plus(HEARTBEAT));
            load(0);
            upkeep();
            sleep(HEARTBEAT);
            blocked = LongStream.range(1_000_000, 1_000_200)
                    .filter(key -> instance(0).check(key) == Membership.ABSENT).count();
        }
        for (int index = 0; index < INSTANCES; index++) {
            check(index);
        }
        return blocked >= 180;
    }

    private void heartbeatAll() {
        for (RedisBloomFilter instance : instances) {
            FilterGenerations generations = instance.generations().orElseThrow();
            try {
                generations.heartbeat();
            }
            catch (RuntimeException ex) {
                generations.heartbeatFailed();
            }
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void close() {
        heartbeats.shutdownNow();
        try {
            heartbeats.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        instances.forEach(RedisBloomFilter::close);
    }
}
