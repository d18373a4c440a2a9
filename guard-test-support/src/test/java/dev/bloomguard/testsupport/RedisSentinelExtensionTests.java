package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.embedded.RedisServer;

class RedisSentinelExtensionTests {

    @RegisterExtension
    static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension("test-master");

    @Test
    void theSentinelKnowsTheMasterByItsName() {
        RedisClient client = RedisClient.create();
        try (StatefulRedisSentinelConnection<String, String> connection = client
                .connectSentinel(RedisURI.create(SENTINEL.sentinel().host(), SENTINEL.sentinel().port()))) {
            InetSocketAddress master = (InetSocketAddress) connection.sync().getMasterAddrByName("test-master");

            assertThat(master.getPort()).isEqualTo(SENTINEL.master().port());
        }
        finally {
            client.shutdown();
        }
    }

    @Test
    void aClientGivenTheSentinelWritesToTheMaster() {
        String[] sentinel = SENTINEL.sentinelAddress().split(":");
        RedisClient client = RedisClient.create(
                RedisURI.Builder.sentinel(sentinel[0], Integer.parseInt(sentinel[1]), SENTINEL.masterName()).build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().set("through-sentinel", "yes");
        }
        finally {
            client.shutdown();
        }
        RedisClient direct = RedisClient.create(RedisURI.create(SENTINEL.master().host(), SENTINEL.master().port()));
        try (StatefulRedisConnection<String, String> connection = direct.connect()) {
            assertThat(connection.sync().get("through-sentinel")).isEqualTo("yes");
        }
        finally {
            direct.shutdown();
        }
    }

    @Test
    void outsideTheClassTestsTheServersAreAClearError() {
        RedisSentinelExtension unregistered = new RedisSentinelExtension("unregistered");

        assertThatThrownBy(unregistered::master).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("register the extension as a static field");
        assertThatThrownBy(unregistered::sentinel).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(unregistered::sentinelAddress).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theMasterAndTheSentinelStopAfterTheClass() {
        RedisSentinelExtension extension = new RedisSentinelExtension("stopped-master");
        // The extension does not look at its context: the class's lifecycle is driven by hand here.
        extension.beforeAll(null);
        RedisServer master = extension.master();
        RedisServer sentinel = extension.sentinel();
        assertThat(master.isRunning()).isTrue();
        assertThat(sentinel.isRunning()).isTrue();

        extension.afterAll(null);

        assertThat(master.isRunning()).isFalse();
        assertThat(sentinel.isRunning()).isFalse();
        assertThatThrownBy(extension::master).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theMasterHasAName() {
        assertThatThrownBy(() -> new RedisSentinelExtension(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("masterName ( ) must not be blank");
    }
}
