package dev.bloomguard.spring.clients;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.util.ClassUtils;

import dev.bloomguard.spring.BootNames;

/**
 * A Redis connection-details bean of the running Spring Boot generation (3.5's
 * {@code RedisConnectionDetails}, 4.0's {@code DataRedisConnectionDetails}), as Testcontainers'
 * {@code @ServiceConnection}, Docker Compose or the application itself defines one: Boot's own
 * Redis configuration (Jedis's, Lettuce's) and Redisson's starter then connect where it says and
 * ignore {@code spring.data.redis.*}. Made as a proxy of the generation's interface so that the
 * same test source compiles on both; methods it does not answer return null (no Sentinel, no
 * Cluster, no credentials).
 */
public final class RedisConnectionDetailsBean {

    private RedisConnectionDetailsBean() {
    }

    /**
     * A standalone Redis at {@code host:port}; {@code sslBundle} names a bundle of the context's
     * {@link SslBundles} for TLS (Boot 3.5 carries it on the standalone part, Boot 4 on the whole),
     * or is null for plain text.
     */
    public static ApplicationContextInitializer<ConfigurableApplicationContext> standalone(String host, int port,
            String sslBundle) {
        return context -> {
            Class<?> type = BootNames.redisConnectionDetails();
            Function<Object, SslBundle> bundle = ignored -> sslBundle == null ? null
                    : context.getBean(SslBundles.class).getBundle(sslBundle);
            Map<String, Function<Object, Object>> standaloneAnswers = new HashMap<>();
            standaloneAnswers.put("getHost", ignored -> host);
            standaloneAnswers.put("getPort", ignored -> port);
            standaloneAnswers.put("getDatabase", ignored -> 0);
            standaloneAnswers.put("getSslBundle", bundle::apply);
            Object standalone = proxy(ClassUtils.resolveClassName(type.getName() + "$Standalone", type.getClassLoader()),
                    "standalone Redis at " + host + ":" + port, standaloneAnswers);
            Map<String, Function<Object, Object>> answers = new HashMap<>();
            answers.put("getStandalone", ignored -> standalone);
            answers.put("getSslBundle", bundle::apply);
            Object details = proxy(type, "the test's " + type.getSimpleName() + " of a Redis at " + host + ":" + port,
                    answers);
            register((GenericApplicationContext) context, type, details);
        };
    }

    @SuppressWarnings("unchecked")
    private static <T> void register(GenericApplicationContext context, Class<T> type, Object details) {
        context.registerBean("testRedisConnectionDetails", type, () -> (T) details);
    }

    private static Object proxy(Class<?> type, String description, Map<String, Function<Object, Object>> answers) {
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
            return switch (method.getName()) {
                case "toString" -> description;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> answers.getOrDefault(method.getName(), ignored -> null).apply(proxy);
            };
        });
    }
}
