package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.embedded.RedisCluster;

/**
 * A one-shard filter on a real three-node Redis Cluster: every key a filter writes shares its
 * live key's hash slot, so checks, loads with their swap script, the adds journal, the load lock
 * and the mirror's pub/sub all work through a cluster client. (Sharding a filter over the
 * nodes is issue 6.)
 */
class RedisClusterCompatibilityTest {

    private static RedisCluster cluster;
    private static LettuceConnectionFactory factory;
    private static LettuceBitmapStore store;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
        factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.nodeAddresses()));
        factory.afterPropertiesSet();
        factory.start();
        store = LettuceBitmapStore.create(factory, Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopCluster() {
        factory.destroy();
        cluster.close();
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
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        long hits = 0;
        while (hits == 0 && System.nanoTime() < deadline) {
            for (long id = 1; id <= 1_000; id++) {
                b.check(id);
            }
            hits = b.mirrorStats().orElseThrow().hits();
        }
        assertThat(hits).as("b answers from its mirror on a cluster").isPositive();
        a.close();
        b.close();
        renewals.shutdownNow();
    }
}
