package dev.bloomguard.test.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ClassUtils;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import dev.bloomguard.embedded.RedisServer;

/**
 * A slice under {@link AutoConfigureBloomGuard} of an application on another client than Lettuce
 * (Jedis, Redisson: here a stand-in factory the starter never uses) whose Redis is described only
 * by a connection-details bean, as Testcontainers' {@code @ServiceConnection} makes one, while
 * {@code spring.data.redis.*} names another Redis. The starter's own connection must follow the
 * bean on either Spring Boot generation (3.5's {@code RedisConnectionDetails}, 4.0's
 * {@code DataRedisConnectionDetails}): the filter's bitmap lands in the bean's Redis, none in the
 * other.
 *
 * <p>The bean is a proxy of the running generation's interface, so that one source compiles on
 * both (guard-spring's tests make theirs the same way, in a helper this module cannot see). The
 * servers outlive the context and stop with the JVM, as in {@link RedisSliceTests}.
 */
@SpringBootTest(classes = { GuardedUsers.class, ConnectionDetailsSliceTests.OtherClientWithDescribedRedis.class },
        properties = { "bloom-guard.filters.user.expected-insertions=1000",
                "bloom-guard.filters.account.expected-insertions=1000" })
@AutoConfigureBloomGuard
@DirtiesContext
class ConnectionDetailsSliceTests {

    /** The Redis the connection-details bean describes. */
    private static final RedisServer DESCRIBED = startUntilExit("described");

    /** The Redis {@code spring.data.redis.*} names, which the bean overrides. */
    private static final RedisServer DECOY = startUntilExit("decoy");

    @Autowired
    GuardedUsers users;

    @Autowired
    BloomGuardTester bloomGuard;

    @DynamicPropertySource
    static void decoy(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", DECOY::host);
        registry.add("spring.data.redis.port", DECOY::port);
    }

    @Test
    void theFiltersLiveInTheRedisTheConnectionDetailsDescribe() {
        bloomGuard.preload("user", LongStream.rangeClosed(1, 1_000).boxed().toList());

        assertThat(keysIn(DESCRIBED, "bg:v1:{user:*")).as("the filter's keys in the described Redis").isNotZero();
        assertThat(keysIn(DECOY, "bg:v1:{user:*")).as("the filter's keys in spring.data.redis's Redis").isZero();
        LongStream.rangeClosed(1, 1_000).forEach(id -> bloomGuard.assertPassed(() -> users.find(id)));
        long rejected = LongStream.rangeClosed(1_000_001, 1_001_000)
                .filter(id -> bloomGuard.rejects(() -> users.find(id))).count();
        assertThat(rejected).as("absent keys rejected, of 1,000").isGreaterThan(950);
    }

    /** A client's factory other than Lettuce's, and the connection-details bean of {@link #DESCRIBED}. */
    @Configuration(proxyBeanMethods = false)
    @Import(DescribedRedisRegistrar.class)
    static class OtherClientWithDescribedRedis {

        @Bean
        RedisConnectionFactory otherClientsFactory() {
            return (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> switch (method.getName()) {
                        case "toString" -> "another client's RedisConnectionFactory";
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException("never used by bloom-guard");
                    });
        }
    }

    /** Registers the connection-details bean under the running generation's interface, as its type. */
    static class DescribedRedisRegistrar implements ImportBeanDefinitionRegistrar {

        private static final String BOOT_3 = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails";
        private static final String BOOT_4 = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

        @Override
        @SuppressWarnings({ "unchecked", "rawtypes" })
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            ClassLoader loader = getClass().getClassLoader();
            Class<?> type = ClassUtils.resolveClassName(ClassUtils.isPresent(BOOT_3, loader) ? BOOT_3 : BOOT_4, loader);
            Class<?> standaloneType = ClassUtils.resolveClassName(type.getName() + "$Standalone", loader);
            Object standalone = proxy(standaloneType, "standalone Redis at " + DESCRIBED.port(),
                    Map.of("getHost", DESCRIBED.host(), "getPort", DESCRIBED.port(), "getDatabase", 0));
            Object details = proxy(type, "the test's " + type.getSimpleName(), Map.of("getStandalone", standalone));
            registry.registerBeanDefinition("testRedisConnectionDetails",
                    new RootBeanDefinition((Class) type, () -> details));
        }
    }

    /** An implementation of {@code type} answering {@code answers} by method name, null to every other method. */
    private static Object proxy(Class<?> type, String description, Map<String, Object> answers) {
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
            return switch (method.getName()) {
                case "toString" -> description;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> answers.get(method.getName());
            };
        });
    }

    private static long keysIn(RedisServer server, String pattern) {
        RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().keys(pattern).size();
        }
        finally {
            client.shutdown();
        }
    }

    private static RedisServer startUntilExit(String role) {
        RedisServer server = RedisServer.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "connection-details-slice-" + role + "-redis"));
        return server;
    }
}
