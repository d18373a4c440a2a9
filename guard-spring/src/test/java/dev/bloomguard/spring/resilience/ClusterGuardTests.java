package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisCluster;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisClusterExtension;

/**
 * The starter on a real Redis Cluster configured the usual way ({@code spring.data.redis.cluster.nodes}),
 * with a sharded filter: guarded calls work, and a node restarted empty is re-warmed by itself
 * while no present key is blocked.
 */
class ClusterGuardTests {

    private static final String TABLE = "cluster_users";

    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    @BeforeAll
    static void createUsers() {
        GuardedApp.createUsers(TABLE, 20000);
    }

    @Test
    void guardsThroughAClusterAndReWarmsAShardNodeRestartedEmpty() throws Exception {
        RedisCluster cluster = CLUSTER.cluster();
        try (ConfigurableApplicationContext context = GuardedApp.start(cluster.nodes().get(0).port(), "cluster", TABLE,
                "SELECT id FROM " + TABLE, "spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodeAddresses()),
                "bloom-guard.redis-timeout=2s", "bloom-guard.filters.user.shards=6")) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            assertThat(filter.geometry().shards()).isEqualTo(6);
            long absentKey = GuardedApp.absentId(filter);
            assertThat(directory.find(2)).isEqualTo(2);
            assertThatThrownBy(() -> directory.find(absentKey)).isInstanceOf(BloomGuardRejectedException.class);

            RedisServer victim = cluster.nodes().get(2);
            victim.restart();
            cluster.awaitHealthy();
            assertThat(filter.isReady()).as("some shards lived on the restarted node").isFalse();
            for (long id = 2; id <= 40_000; id += 2) {
                assertThat(directory.find(id)).as("present key %s while a node is empty", id).isEqualTo(id);
            }
            Await.until("the filter re-warmed by itself", Duration.ofSeconds(30), filter::isReady);
            assertThatThrownBy(() -> directory.find(absentKey)).isInstanceOf(BloomGuardRejectedException.class);
            long created = directory.create();
            assertThat(directory.find(created)).isEqualTo(created);
        }
    }
}
