package dev.bloomguard.test.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.embedded.RedisServer;

/**
 * A slice under {@link AutoConfigureBloomGuard}: the service, the starter and Spring Boot's Redis
 * auto-configuration, with the filters in a real redis-server, as the README's Testcontainers example
 * has them in a container (its {@code @ServiceConnection} stands where {@code spring.data.redis.*}
 * stands here).
 *
 * <p>The server is not a {@code RedisServerExtension}: JUnit would stop it before the Spring
 * extension closes the context, whose filters then wait out their Redis timeouts on the way down.
 * It outlives the context (closed after the class, {@code @DirtiesContext}) and stops with the JVM.
 */
@SpringBootTest(classes = GuardedUsers.class, properties = { "bloom-guard.filters.user.expected-insertions=1000",
        "bloom-guard.filters.account.expected-insertions=1000" })
@AutoConfigureBloomGuard
@DirtiesContext
class RedisSliceTests {

    private static final RedisServer REDIS = startUntilExit();

    @Autowired
    GuardedUsers users;

    @Autowired
    BloomGuardTester bloomGuard;

    @Autowired
    ApplicationContext context;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", REDIS::host);
        registry.add("spring.data.redis.port", REDIS::port);
    }

    @Test
    void theFilterIsInRedisAndGuardsTheService() {
        assertThat(context.getBean(BitmapStore.class)).isInstanceOf(LettuceBitmapStore.class);

        bloomGuard.preload("user", LongStream.rangeClosed(1, 1_000).boxed().toList());

        assertThat(keysInRedis("bg:v1:{user:*")).as("the filter's keys in Redis").isNotZero();
        LongStream.rangeClosed(1, 1_000).forEach(id -> bloomGuard.assertPassed(() -> users.find(id)));
        long rejected = LongStream.rangeClosed(1_000_001, 1_001_000)
                .filter(id -> bloomGuard.rejects(() -> users.find(id))).count();
        assertThat(rejected).as("absent keys rejected, of 1,000").isGreaterThan(950);
        assertThat(bloomGuard.blocked("user")).isEqualTo(rejected);
    }

    private static long keysInRedis(String pattern) {
        RedisClient client = RedisClient.create(RedisURI.create(REDIS.host(), REDIS.port()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().keys(pattern).size();
        }
        finally {
            client.shutdown();
        }
    }

    private static RedisServer startUntilExit() {
        RedisServer server = RedisServer.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "redis-slice-tests-redis"));
        return server;
    }
}
