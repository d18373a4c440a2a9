package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisClusterExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Filters on a real three-master Redis Cluster: a one-shard filter's keys share one slot, so
 * the swap script, journal, lock and mirror pub/sub route through a cluster client; a sharded
 * filter spreads over every node with no false negative and the configured false-positive
 * rate, and a node restarted empty is bypassed (never blocking) until its shards are loaded again.
 */
class ShardedClusterTests {

    private static final int KEYS = 200_000;

    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private static LettuceConnections connections;
    private static LettuceBitmapStore store;

    @BeforeAll
    static void connect() {
        connections = LettuceConnections.of(CLUSTER.client());
        store = LettuceBitmapStore.create(connections, Duration.ofSeconds(10));
    }

    @AfterAll
    static void disconnect() {
        connections.close();
    }

    @Test
    void shardsSpreadOverEveryNodeWithNoFalseNegativeAndTheConfiguredRate() {
        RedisBloomFilter filter = RedisBloomFilter.builder("spread", FilterGeometry.withShards(KEYS, 0.01, 12), store)
                .checkTimeout(Duration.ofSeconds(5)).build();
        filter.load(LongStream.rangeClosed(1, KEYS).boxed());
        assertThat(filter.isReady()).isTrue();
        List<Long> all = LongStream.rangeClosed(1, KEYS).boxed().toList();
        for (int from = 0; from < all.size(); from += 1000) {
            assertThat(filter.checkAll(all.subList(from, from + 1000))).containsOnly(Membership.PRESENT);
        }
        for (long id = 1; id <= 2_000; id++) {
            assertThat(filter.check(id)).isEqualTo(Membership.PRESENT);
        }
        long positives = 0;
        for (long from = 0; from < 100_000; from += 1000) {
            List<Long> absent = LongStream.range(from, from + 1000).map(i -> 10_000_000 + i).boxed().toList();
            positives += filter.checkAll(absent).stream().filter(answer -> answer == Membership.PRESENT).count();
        }
        assertThat(positives / 100_000.0).as("measured fpp").isBetween(0.005, 0.015);
        for (RedisServer node : CLUSTER.cluster().nodes()) {
            assertThat(shardKeysOn(node, "spread")).as("shards on node %s", node.port()).isPositive();
        }
        FilterStatus status = filter.status();
        assertThat(status.state()).isEqualTo(FilterState.READY);
        assertThat(status.approximateCount()).isBetween((long) (KEYS * 0.97), (long) (KEYS * 1.03));
    }

    @Test
    void aNodeRestartedEmptyIsBypassedNeverBlocksAndComesBackWithALoad() throws Exception {
        RedisBloomFilter filter = RedisBloomFilter.builder("restarted", FilterGeometry.withShards(50_000, 0.01, 9), store)
                .checkTimeout(Duration.ofSeconds(2)).build();
        filter.load(LongStream.rangeClosed(1, 50_000).boxed());
        RedisServer victim = CLUSTER.cluster().nodes().get(1);
        assertThat(shardKeysOn(victim, "restarted")).isPositive();
        victim.restart();
        CLUSTER.cluster().awaitHealthy();
        List<Long> all = LongStream.rangeClosed(1, 50_000).boxed().toList();
        long notReady = 0;
        for (int from = 0; from < all.size(); from += 1000) {
            for (Membership answer : filter.checkAll(all.subList(from, from + 1000))) {
                assertThat(answer).as("a present key while a node is empty").isNotEqualTo(Membership.ABSENT);
                notReady += answer == Membership.NOT_READY ? 1 : 0;
            }
        }
        assertThat(notReady).as("keys whose shard lived on the emptied node").isPositive().isLessThan(50_000);
        assertThat(filter.isReady()).isFalse();
        filter.load(LongStream.rangeClosed(1, 50_000).boxed());
        for (int from = 0; from < all.size(); from += 1000) {
            assertThat(filter.checkAll(all.subList(from, from + 1000))).containsOnly(Membership.PRESENT);
        }
        assertThat(filter.isReady()).isTrue();
    }

    @Test
    void batchAddsSpreadOverShardsPassAtOnceAndSurviveAReload() {
        RedisBloomFilter filter = RedisBloomFilter.builder("added", FilterGeometry.withShards(10_000, 0.01, 6), store)
                .checkTimeout(Duration.ofSeconds(5)).build();
        filter.load(LongStream.rangeClosed(1, 10_000).boxed());
        List<Long> added = new ArrayList<>();
        for (long id = 1_000_000; added.size() < 1_000; id++) {
            if (filter.check(id) == Membership.ABSENT) {
                added.add(id);
            }
        }
        filter.addAll(added);
        assertThat(filter.checkAll(added)).containsOnly(Membership.PRESENT);
        LoadReport reload = filter.load(LongStream.rangeClosed(1, 10_000).boxed());
        assertThat(reload.replayedAdds()).isEqualTo(1_000);
        assertThat(filter.checkAll(added)).containsOnly(Membership.PRESENT);
    }

    @Test
    void aShardedFilterMirrorsEveryShardAndHearsAddsFromAnotherInstance() throws Exception {
        FilterGeometry geometry = FilterGeometry.withShards(20_000, 0.01, 4);
        dev.bloomguard.core.mirror.MirrorSettings settings = dev.bloomguard.core.mirror.MirrorSettings.of(4 << 20,
                Duration.ofMinutes(5));
        RedisBloomFilter a = RedisBloomFilter.builder("mirrored-shards", geometry, store)
                .checkTimeout(Duration.ofSeconds(5)).mirror(settings).build();
        RedisBloomFilter b = RedisBloomFilter.builder("mirrored-shards", geometry, store)
                .checkTimeout(Duration.ofSeconds(5)).mirror(settings).build();
        try {
            a.load(LongStream.rangeClosed(1, 20_000).boxed());
            Await.until("b's mirror holding a page of every shard", Duration.ofSeconds(20), () -> {
                for (long id = 1; id <= 2_000; id++) {
                    assertThat(b.check(id)).isEqualTo(Membership.PRESENT);
                }
                return b.mirrorStats().orElseThrow().pages() >= 4;
            });
            assertThat(b.mirrorStats().orElseThrow().pages()).as("a page of every shard").isEqualTo(4);
            long hitsBefore = b.mirrorStats().orElseThrow().hits();
            for (long id = 1; id <= 20_000; id++) {
                assertThat(b.check(id)).isEqualTo(Membership.PRESENT);
            }
            assertThat(b.mirrorStats().orElseThrow().hits() - hitsBefore).isEqualTo(20_000);
            List<Long> added = new ArrayList<>();
            for (long id = 5_000_000; added.size() < 200; id++) {
                if (b.check(id) == Membership.ABSENT) {
                    added.add(id);
                }
            }
            a.addAll(added);
            assertThat(b.checkAll(added)).containsOnly(Membership.PRESENT);
        }
        finally {
            a.close();
            b.close();
        }
    }

    private static long shardKeysOn(RedisServer node, String filter) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + node.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().keys("bg:v1:{" + filter + ":*").stream()
                    .filter(key -> !key.contains(":staging:") && key.endsWith("}")).count();
        }
        finally {
            client.shutdown();
        }
    }

    @Test
    void loadsChecksAddsAndSwapsThroughAClusterClient() {
        RedisBloomFilter filter = RedisBloomFilter.builder("clustered", FilterGeometry.of(100_000, 0.01), store)
                .checkTimeout(Duration.ofSeconds(5)).build();
        assertThat(filter.check(1L)).isEqualTo(Membership.NOT_READY);
        LoadReport report = filter.load(LongStream.rangeClosed(1, 100_000).boxed());
        assertThat(report.keys()).isEqualTo(100_000);
        List<Long> all = LongStream.rangeClosed(1, 100_000).boxed().toList();
        for (int from = 0; from < all.size(); from += 1000) {
            assertThat(filter.checkAll(all.subList(from, from + 1000))).containsOnly(Membership.PRESENT);
        }
        long absent = LongStream.iterate(200_000, id -> id + 1).filter(id -> filter.check(id) == Membership.ABSENT)
                .findFirst().orElseThrow();
        filter.add(absent);
        assertThat(filter.check(absent)).isEqualTo(Membership.PRESENT);
        LoadReport reload = filter.load(LongStream.rangeClosed(1, 100_000).boxed());
        assertThat(reload.replayedAdds()).isEqualTo(1);
        assertThat(filter.check(absent)).as("journaled add replayed by the swap script").isEqualTo(Membership.PRESENT);
        assertThat(filter.status().state()).isEqualTo(FilterState.READY);
    }

    @Test
    void lockAndMirrorWorkThroughAClusterClient() throws Exception {
        ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor();
        RedisBloomFilter a = RedisBloomFilter.builder("mirrored-cluster", FilterGeometry.of(10_000, 0.01), store)
                .instanceId("a").checkTimeout(Duration.ofSeconds(5))
                .mirror(MirrorSettings.of(1 << 20, Duration.ofMinutes(5))).build();
        RedisBloomFilter b = RedisBloomFilter.builder("mirrored-cluster", FilterGeometry.of(10_000, 0.01), store)
                .instanceId("b").checkTimeout(Duration.ofSeconds(5))
                .mirror(MirrorSettings.of(1 << 20, Duration.ofMinutes(5))).build();
        try (RedisBloomFilter.LoadLease lease = a.tryLockForLoad(Duration.ofSeconds(10), renewals).orElseThrow()) {
            assertThat(b.tryLockForLoad(Duration.ofSeconds(10), renewals)).isEmpty();
            assertThat(b.lockHolder()).contains("a");
            a.load(LongStream.rangeClosed(1, 10_000).boxed());
        }
        for (long id = 1; id <= 10_000; id++) {
            assertThat(b.check(id)).isEqualTo(Membership.PRESENT);
        }
        long hits = Await.until("b answering from its mirror", Duration.ofSeconds(20), () -> {
            for (long id = 1; id <= 1_000; id++) {
                b.check(id);
            }
            return b.mirrorStats().orElseThrow().hits();
        }, answered -> answered > 0);
        assertThat(hits).as("b answers from its mirror on a cluster").isPositive();
        a.close();
        b.close();
        renewals.shutdownNow();
    }
}
