package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.clients.ClientsApp;
import dev.bloomguard.spring.clients.RedisConnectionDetailsBean;
import dev.bloomguard.spring.data.Rejections;
import dev.bloomguard.testsupport.RedisClusterExtension;
import dev.bloomguard.testsupport.RedisSentinelExtension;
import dev.bloomguard.testsupport.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

/**
 * Every kind of Redis a connection-details bean can describe reaches the starter's own connection
 * when the application's factory is not Lettuce's (here a stand-in the starter never uses, as in
 * {@link RedisConnectionFailureTests}): a password, a master behind Sentinels, a Redis Cluster.
 * {@code spring.data.redis.*} names the shared test Redis each time, so a connection that read
 * the properties instead would write there. The Jedis and Redisson applications on such a bean
 * are in their own executions (JedisConnectionDetailsTests, RedissonConnectionDetailsTests).
 */
class ConnectionDetailsTests {

    private static final String PASSWORD = "details-secret";

    @RegisterExtension
    static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension("details-master");

    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    /** Asks for {@link #PASSWORD} once the class starts (a server started with it would not answer the startup PING). */
    @RegisterExtension
    static final RedisServerExtension WITH_PASSWORD = new RedisServerExtension();

    @BeforeAll
    static void requirePassword() {
        WITH_PASSWORD.admin().configSet("requirepass", PASSWORD);
    }

    @Test
    void theConnectionDetailsPasswordLogsIn() {
        RedisServer withPassword = WITH_PASSWORD.server();
        try (ConfigurableApplicationContext context = start(RedisConnectionDetailsBean.standaloneWithPassword(
                withPassword.host(), withPassword.port(), PASSWORD), "details-password")) {
            RedisBloomFilter filter = load(context);
            RedisClient client = RedisClient.create(RedisURI.builder().withHost(withPassword.host())
                    .withPort(withPassword.port()).withPassword((CharSequence) PASSWORD).build());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().exists(filter.keys().live(0))).as("the bitmap in the Redis with a password")
                        .isEqualTo(1L);
            }
            finally {
                client.shutdown();
            }
            assertThat(ClientsApp.exists(RealServers.redis(), filter.keys().live(0))).as("in spring.data.redis's Redis")
                    .isFalse();
        }
    }

    @Test
    void filtersReachTheMasterThroughTheSentinelsTheConnectionDetailsName() {
        try (ConfigurableApplicationContext context = start(RedisConnectionDetailsBean.sentinel(SENTINEL.masterName(),
                SENTINEL.sentinel().host(), SENTINEL.sentinel().port()), "details-sentinel")) {
            RedisBloomFilter filter = load(context);
            assertThat(ClientsApp.exists(SENTINEL.master(), filter.keys().live(0))).as("the bitmap in the master").isTrue();
            assertThat(ClientsApp.exists(RealServers.redis(), filter.keys().live(0))).as("in spring.data.redis's Redis")
                    .isFalse();
        }
    }

    @Test
    void filtersLiveInTheClusterTheConnectionDetailsName() {
        try (ConfigurableApplicationContext context = start(RedisConnectionDetailsBean.cluster(CLUSTER.nodeAddresses()),
                "details-cluster", "--bloom-guard.filters.user.shards=3")) {
            RedisBloomFilter filter = load(context);
            try (StatefulRedisClusterConnection<String, String> connection = CLUSTER.client().connect()) {
                for (int shard = 0; shard < 3; shard++) {
                    assertThat(connection.sync().exists(filter.keys().live(shard))).as("shard %s in the cluster", shard)
                            .isEqualTo(1L);
                }
            }
            assertThat(ClientsApp.exists(RealServers.redis(), filter.keys().live(0))).as("in spring.data.redis's Redis")
                    .isFalse();
        }
    }

    /**
     * Boot's own connection factories read the standalone description when the bean describes
     * neither Sentinels nor a Cluster; one that describes none of the three names no Redis. The
     * start fails through the failure analyzer naming the bean, not with a NullPointerException.
     */
    @Test
    void aConnectionDetailsBeanThatDescribesNoRedisFailsNamingIt() {
        assertThatThrownBy(() -> start(RedisConnectionDetailsBean.describingNothing(), "details-nothing").close())
                .satisfies(failure -> {
                    FailureAnalysis analysis = new BloomGuardConfigurationFailureAnalyzer().analyze(failure);
                    assertThat(analysis).as("analysis of %s", failure).isNotNull();
                    assertThat(analysis.getDescription()).contains(
                            BootNames.redisConnectionDetails().getSimpleName() + " (",
                            "describes no Redis: neither a standalone server, nor Sentinels, nor a Cluster");
                    assertThat(analysis.getAction()).contains("bloom-guard.redis.host");
                });
    }

    /** Loads the present ids: every one passes, nearly every absent one is blocked. */
    private static RedisBloomFilter load(ConfigurableApplicationContext context) {
        RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
        filter.load(LongStream.rangeClosed(1, ClientsApp.PRESENT).boxed());
        ClientsApp.Users users = context.getBean(ClientsApp.Users.class);
        for (long id = 1; id <= ClientsApp.PRESENT; id++) {
            assertThat(users.find(id)).as("present id %s", id).isPresent();
        }
        assertThat(filter.check(1L)).isEqualTo(Membership.PRESENT);
        List<Long> absent = LongStream.rangeClosed(1_000_001, 1_002_000).boxed().toList();
        assertThat(Rejections.count(absent, users::find)).as("absent ids blocked").isGreaterThan(1_900);
        return filter;
    }

    /** ClientsApp on another client's factory, spring.data.redis.* on the shared test Redis, and the bean {@code details} adds. */
    private static ConfigurableApplicationContext start(
            ApplicationContextInitializer<ConfigurableApplicationContext> details, String keyPrefix, String... args) {
        String[] all = new String[args.length + 5];
        all[0] = "--spring.data.redis.host=" + RealServers.redis().host();
        all[1] = "--spring.data.redis.port=" + RealServers.redis().port();
        all[2] = "--bloom-guard.key-prefix=" + keyPrefix;
        all[3] = "--bloom-guard.redis-timeout=5s";
        all[4] = "--bloom-guard.filters.user.expected-insertions=20000";
        System.arraycopy(args, 0, all, 5, args.length);
        return new SpringApplicationBuilder(ClientsApp.class, RedisConnectionFailureTests.OtherClientFactory.class)
                .web(WebApplicationType.NONE).initializers(details).run(all);
    }
}
