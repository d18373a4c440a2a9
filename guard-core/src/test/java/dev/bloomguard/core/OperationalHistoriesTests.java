package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import dev.bloomguard.core.histories.History;
import dev.bloomguard.core.histories.HistoryRedis;
import dev.bloomguard.core.histories.Step;
import dev.bloomguard.embedded.RedisCluster;
import dev.bloomguard.embedded.RedisServer;

/**
 * Histories nobody thought of: random sequences of what happens to a filter in production, played
 * by three instances of one filter on a real redis-server (one history in four on a Redis Cluster of three
 * masters, the filter in three shards) against a model of the keys the filter
 * knows: those whose add returned, and rows written behind the guard's back once a load of every
 * generation that may answer read them. The property: no known key is ever answered ABSENT, nor
 * rejected as a remembered miss, once the bound the README states for that day has passed (after
 * Redis went back in time, the next rewind check of every instance; otherwise at once).
 *
 * <p>The steps: adds on any instance, refused adds while Redis refuses writes, rows inserted
 * behind the guard's back, loads on any instance (some from a broken source that returns nothing),
 * FLUSHALL, a snapshot and a restart from it (Redis gone back in time), remembered misses, a
 * loader killed mid-load, time passing beyond the journal's retention, the upkeep the starter
 * schedules (heartbeats, rewind checks, journal upkeep) and checks. One instance may run another
 * geometry or key type (a rolling change). jqwik prints the seed of a failing run and shrinks it
 * to a minimal history; {@code -Dhistories=N} sets how many run (200 in CI), and the totals are
 * printed at the end.
 */
class OperationalHistoriesTests {

    /** Histories played, a failing one's shrinking included. */
    private static final AtomicLong HISTORIES = new AtomicLong();
    private static final AtomicLong STEPS = new AtomicLong();
    /** Histories whose filter should block absent keys at their end (see {@link History.Variant}). */
    private static final AtomicLong SETTLED = new AtomicLong();
    private static final AtomicLong BLOCKING_AT_THE_END = new AtomicLong();

    private static final AtomicLong ON_A_CLUSTER = new AtomicLong();

    private static RedisServer server;
    private static RedisCluster cluster;
    /** One client for every history on each: a client per history would start its own threads and timers each time. */
    private static HistoryRedis standalone;
    private static HistoryRedis clustered;

    /** Where a history plays: one redis-server, or a Redis Cluster of three masters. */
    enum Topology {
        STANDALONE, CLUSTER
    }

    @BeforeContainer
    static void startRedis() {
        server = RedisServer.start();
        standalone = HistoryRedis.standalone(server);
        cluster = RedisCluster.start(3);
        clustered = HistoryRedis.cluster(cluster);
    }

    @AfterContainer
    static void stopRedis() {
        for (AutoCloseable closing : new AutoCloseable[] { standalone, clustered, server, cluster }) {
            try {
                if (closing != null) {
                    closing.close();
                }
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }
        System.out.printf("Operational histories: %d histories played (%d on a Redis Cluster), %d steps, %d checks of known keys (%d answered"
                + " ABSENT), %d histories blocking absent keys at their end (of %d settled)%n", HISTORIES.get(),
                ON_A_CLUSTER.get(), STEPS.get(), History.COMMITTED_CHECKS.get(), History.FALSE_NEGATIVES.get(),
                BLOCKING_AT_THE_END.get(), SETTLED.get());
        assertThat(BLOCKING_AT_THE_END.get()).as("histories whose filter blocks most absent keys at their end")
                .isGreaterThan(SETTLED.get() * 9 / 10);
    }

    @Property(shrinking = ShrinkingMode.BOUNDED)
    void noCommittedKeyIsEverAnsweredAbsent(@ForAll("histories") List<Step> steps, @ForAll History.Variant variant,
            @ForAll("topologies") Topology topology) {
        HISTORIES.incrementAndGet();
        if (topology == Topology.CLUSTER) {
            ON_A_CLUSTER.incrementAndGet();
        }
        try (History history = History.start(topology == Topology.CLUSTER ? clustered : standalone, variant)) {
            for (Step step : steps) {
                STEPS.incrementAndGet();
                step.apply(history);
            }
            boolean blocking = history.settle();
            if (variant.blocksDuringTheChange()) {
                SETTLED.incrementAndGet();
                if (blocking) {
                    BLOCKING_AT_THE_END.incrementAndGet();
                }
            }
        }
    }

    /**
     * One history written out, the day of issue 34's first path: a rebuild from a source that
     * returns nothing after a real load. It fails when loads are no longer held to what the live
     * filter holds, as any random history that meets that day does.
     */
    @Example
    void aRebuildFromABrokenSourceAfterARealLoadBlocksNoCommittedKey() {
        List<Step> steps = List.of(new Step.Insert(1), new Step.Insert(2), new Step.Add(1, 3), new Step.Load(0),
                new Step.Upkeep(), new Step.BrokenLoad(2), new Step.Check(0), new Step.Check(1), new Step.Check(2));
        try (History history = History.start(standalone, History.Variant.ONE_CONFIGURATION)) {
            steps.forEach(step -> step.apply(history));
            assertThat(history.settle()).as("blocks absent keys at its end").isTrue();
        }
    }

    /**
     * Each step drawn as three numbers (which step, which instance, which key) mapped to a step, not
     * as a choice among arbitraries: a history then shrinks quickly, toward fewer steps, smaller
     * keys and adds.
     */
    /** One history in four on the cluster, whose steps take longer (each operator act reaches three nodes). */
    @Provide
    Arbitrary<Topology> topologies() {
        return Arbitraries.frequency(Tuple.of(3, Topology.STANDALONE), Tuple.of(1, Topology.CLUSTER));
    }

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, 99),
                Arbitraries.integers().between(0, History.INSTANCES - 1), Arbitraries.longs().between(1, 300))
                .as(OperationalHistoriesTests::step);
        return step.list().ofMinSize(5).ofMaxSize(25);
    }

    private static Step step(int kind, int instance, long key) {
        if (kind < 34) {
            return new Step.Add(instance, key);
        }
        if (kind < 40) {
            return new Step.Insert(key);
        }
        if (kind < 46) {
            return new Step.Load(instance);
        }
        if (kind < 48) {
            return new Step.BrokenLoad(instance);
        }
        if (kind < 50) {
            return new Step.Flush();
        }
        if (kind < 52) {
            return new Step.KilledLoader();
        }
        if (kind < 56) {
            return new Step.Snapshot();
        }
        if (kind < 60) {
            return new Step.BackInTime();
        }
        if (kind < 64) {
            return new Step.RefuseWrites(instance == 0);
        }
        if (kind < 68) {
            return new Step.RememberMiss(key);
        }
        if (kind < 70) {
            return new Step.Wait();
        }
        if (kind < 80) {
            return new Step.Upkeep();
        }
        return new Step.Check(instance);
    }
}
