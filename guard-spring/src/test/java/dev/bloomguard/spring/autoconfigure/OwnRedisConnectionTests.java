package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.clients.ClientsApp;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisClusterExtension;
import dev.bloomguard.testsupport.RedisSentinelExtension;
import dev.bloomguard.testsupport.RedisServerExtension;
import dev.bloomguard.testsupport.RedisTlsExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

/**
 * bloom-guard.redis.* set (clients/own-redis.yml, the README's example): the filters live in that
 * Redis, through a Lettuce client the starter owns, even though the application's own factory is
 * Lettuce's and points at another Redis; the client goes when the context closes. Sentinel and
 * Cluster settings reach their servers too, and a TLS Redis with the SSL bundle named in
 * bloom-guard.redis.ssl.bundle.
 */
class OwnRedisConnectionTests {

    /** bloom-guard's own Redis, beside the application's (the shared test Redis). */
    @RegisterExtension
    static final RedisServerExtension OWN = new RedisServerExtension();

    @RegisterExtension
    static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension("own-master");

    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    @RegisterExtension
    static final RedisTlsExtension TLS = new RedisTlsExtension();

    @Test
    void filtersLiveInBloomGuardsOwnRedisBesideTheApplicationsLettuceFactory() throws InterruptedException {
        RedisServer own = OWN.server();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ClientsApp.class)
                .web(WebApplicationType.NONE)
                .run("--spring.config.import=classpath:clients/own-redis.yml",
                        "--REDIS_HOST=" + RealServers.redis().host(), "--REDIS_PORT=" + RealServers.redis().port(),
                        "--BLOOM_GUARD_REDIS_HOST=" + own.host(), "--BLOOM_GUARD_REDIS_PORT=" + own.port(),
                        "--bloom-guard.key-prefix=clients-own", "--bloom-guard.redis-timeout=5s",
                        "--bloom-guard.filters.user.expected-insertions=20000");
        try {
            RedisConnectionFactory applications = context.getBean(RedisConnectionFactory.class);
            assertThat(applications).isInstanceOf(LettuceConnectionFactory.class);
            assertThat(((LettuceConnectionFactory) applications).getPort()).isEqualTo(RealServers.redis().port());

            ClientsApp.guardsThrough(context, own, RealServers.redis());
            assertThat(ClientsApp.clientNames(own)).contains(StarterRedisConnection.DEFAULT_CLIENT_NAME);
        }
        finally {
            context.close();
        }
        Await.until("bloom-guard's connections closed", Duration.ofSeconds(5), Duration.ofMillis(50),
                () -> !ClientsApp.clientNames(own).contains(StarterRedisConnection.DEFAULT_CLIENT_NAME));
        assertThat(ClientsApp.clientNames(own)).as("bloom-guard's connections once the context closed")
                .doesNotContain(StarterRedisConnection.DEFAULT_CLIENT_NAME);
    }

    @Test
    void filtersReachTheMasterThroughSentinelsNamedInBloomGuardRedis() {
        RedisServer master = SENTINEL.master();
        try (ConfigurableApplicationContext context = start("--bloom-guard.redis.sentinel.master=" + SENTINEL.masterName(),
                "--bloom-guard.redis.sentinel.nodes=" + SENTINEL.sentinelAddress(), "--bloom-guard.redis.database=2",
                "--bloom-guard.key-prefix=clients-sentinel")) {
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            filter.load(LongStream.rangeClosed(1, ClientsApp.PRESENT).boxed());
            assertThat(filter.check(1L)).isEqualTo(Membership.PRESENT);
            assertThat(ClientsApp.exists(master, filter.keys().live(0))).as("in database 0").isFalse();
            RedisClient client = RedisClient.create("redis://127.0.0.1:" + master.port() + "/2");
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().exists(filter.keys().live(0))).as("in database 2").isEqualTo(1L);
            }
            finally {
                client.shutdown();
            }
        }
    }

    @Test
    void filtersLiveInTheClusterNamedInBloomGuardRedis() {
        try (ConfigurableApplicationContext context = start(
                "--bloom-guard.redis.cluster.nodes=" + String.join(",", CLUSTER.nodeAddresses()),
                "--bloom-guard.key-prefix=clients-cluster", "--bloom-guard.filters.user.shards=3")) {
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            filter.load(LongStream.rangeClosed(1, ClientsApp.PRESENT).boxed());
            ClientsApp.Users users = context.getBean(ClientsApp.Users.class);
            for (long id = 1; id <= ClientsApp.PRESENT; id++) {
                assertThat(users.find(id)).isPresent();
            }
            try (StatefulRedisClusterConnection<String, String> connection = CLUSTER.client().connect()) {
                for (int shard = 0; shard < 3; shard++) {
                    assertThat(connection.sync().exists(filter.keys().live(shard))).as("shard %s in the cluster", shard)
                            .isEqualTo(1L);
                }
            }
        }
    }

    @Test
    void filtersReachATlsRedisNamedInBloomGuardRedisWithItsSslBundle() {
        try (ConfigurableApplicationContext context = start("--bloom-guard.redis.host=" + TLS.server().host(),
                "--bloom-guard.redis.port=" + TLS.tlsPort(), "--bloom-guard.redis.ssl.bundle=bloom-guard-redis",
                "--spring.ssl.bundle.pem.bloom-guard-redis.truststore.certificate=file:" + TLS.certificate(),
                "--bloom-guard.key-prefix=clients-own-tls")) {
            ClientsApp.guardsThrough(context, TLS.server(), RealServers.redis());
        }
    }

    /** ClientsApp with its Lettuce factory on the shared test Redis, and bloom-guard's connection from {@code args}. */
    private static ConfigurableApplicationContext start(String... args) {
        List<String> all = new ArrayList<>(List.of(RealServers.redisProperties()).stream().map(property -> "--" + property)
                .toList());
        all.addAll(List.of("--bloom-guard.redis-timeout=5s", "--bloom-guard.filters.user.expected-insertions=20000"));
        all.addAll(List.of(args));
        return new SpringApplicationBuilder(ClientsApp.class).web(WebApplicationType.NONE).run(all.toArray(String[]::new));
    }
}
