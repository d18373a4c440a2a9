package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.embedded.RedisServer;

class RedisClusterExtensionTests {

    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    @Test
    void theClassHasARealClusterThatSpreadsKeysOverEveryMaster() {
        assertThat(CLUSTER.nodeAddresses()).hasSize(3);
        try (StatefulRedisClusterConnection<String, String> connection = CLUSTER.client().connect()) {
            assertThat(connection.sync().clusterInfo()).contains("cluster_state:ok");
            for (int key = 0; key < 300; key++) {
                connection.sync().set("spread-" + key, "v");
            }
        }
        for (RedisServer node : CLUSTER.cluster().nodes()) {
            assertThat(keysOn(node)).as("keys on node %s", node.port()).isPositive();
        }
    }

    @Test
    void theClientIsCreatedOnceForTheClass() {
        assertThat(CLUSTER.client()).isSameAs(CLUSTER.client());
    }

    @Test
    void outsideTheClassTestsTheClusterIsAClearError() {
        RedisClusterExtension unregistered = new RedisClusterExtension();

        assertThatThrownBy(unregistered::cluster).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("register the extension as a static field");
        assertThatThrownBy(unregistered::nodeAddresses).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(unregistered::client).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theClusterStopsAfterTheClass() {
        RedisClusterExtension extension = new RedisClusterExtension(1);
        // The extension does not look at its context: the class's lifecycle is driven by hand here.
        extension.beforeAll(null);
        List<RedisServer> nodes = extension.cluster().nodes();
        try (StatefulRedisClusterConnection<String, String> connection = extension.client().connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        }

        extension.afterAll(null);

        assertThat(nodes).noneMatch(RedisServer::isRunning);
        assertThatThrownBy(extension::cluster).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aClusterHasAtLeastOneMaster() {
        assertThatThrownBy(() -> new RedisClusterExtension(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("masters (0) must be at least 1");
    }

    private static long keysOn(RedisServer node) {
        RedisClient client = RedisClient.create(RedisURI.create(node.host(), node.port()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().dbsize();
        }
        finally {
            client.shutdown();
        }
    }
}
