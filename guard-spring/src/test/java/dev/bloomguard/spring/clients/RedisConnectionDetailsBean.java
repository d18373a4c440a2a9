package dev.bloomguard.spring.clients;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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
        return standalone(host, port, null, sslBundle);
    }

    /** A standalone Redis at {@code host:port} that asks for {@code password} (AUTH with the default user). */
    public static ApplicationContextInitializer<ConfigurableApplicationContext> standaloneWithPassword(String host,
            int port, String password) {
        return standalone(host, port, password, null);
    }

    /** The master that the Sentinel at {@code host:port} knows as {@code master}. */
    public static ApplicationContextInitializer<ConfigurableApplicationContext> sentinel(String master, String host,
            int port) {
        return context -> {
            Class<?> type = BootNames.redisConnectionDetails();
            Map<String, Function<Object, Object>> sentinelAnswers = new HashMap<>();
            sentinelAnswers.put("getMaster", ignored -> master);
            sentinelAnswers.put("getNodes", ignored -> List.of(node(type, host, port)));
            sentinelAnswers.put("getDatabase", ignored -> 0);
            Object sentinel = proxy(nested(type, "Sentinel"), "Sentinel at " + host + ":" + port, sentinelAnswers);
            register((GenericApplicationContext) context, type, proxy(type, "the test's " + type.getSimpleName()
                    + " of master '" + master + "'", Map.of("getSentinel", ignored -> sentinel)));
        };
    }

    /** A Redis Cluster reached through {@code nodes}, each host:port. */
    public static ApplicationContextInitializer<ConfigurableApplicationContext> cluster(List<String> nodes) {
        return context -> {
            Class<?> type = BootNames.redisConnectionDetails();
            List<Object> clusterNodes = nodes.stream().map(node -> node(type, node.substring(0, node.lastIndexOf(':')),
                    Integer.parseInt(node.substring(node.lastIndexOf(':') + 1)))).toList();
            Object cluster = proxy(nested(type, "Cluster"), "Cluster at " + nodes,
                    Map.of("getNodes", ignored -> clusterNodes));
            register((GenericApplicationContext) context, type, proxy(type, "the test's " + type.getSimpleName()
                    + " of a Cluster at " + nodes, Map.of("getCluster", ignored -> cluster)));
        };
    }

    /**
     * A bean that describes no Redis at all: no standalone server, no Sentinel, no Cluster (as a
     * custom implementation that overrides none of the interface's defaults does).
     */
    public static ApplicationContextInitializer<ConfigurableApplicationContext> describingNothing() {
        return context -> {
            Class<?> type = BootNames.redisConnectionDetails();
            register((GenericApplicationContext) context, type, proxy(type, "the test's " + type.getSimpleName()
                    + " of no Redis", Map.of()));
        };
    }

    private static ApplicationContextInitializer<ConfigurableApplicationContext> standalone(String host, int port,
            String password, String sslBundle) {
        return context -> {
            Class<?> type = BootNames.redisConnectionDetails();
            Function<Object, Object> bundle = ignored -> sslBundle == null ? null
                    : context.getBean(SslBundles.class).getBundle(sslBundle);
            Map<String, Function<Object, Object>> standaloneAnswers = new HashMap<>();
            standaloneAnswers.put("getHost", ignored -> host);
            standaloneAnswers.put("getPort", ignored -> port);
            standaloneAnswers.put("getDatabase", ignored -> 0);
            standaloneAnswers.put("getSslBundle", bundle);
            Object standalone = proxy(nested(type, "Standalone"), "standalone Redis at " + host + ":" + port,
                    standaloneAnswers);
            Map<String, Function<Object, Object>> answers = new HashMap<>();
            answers.put("getStandalone", ignored -> standalone);
            answers.put("getSslBundle", bundle);
            answers.put("getPassword", ignored -> password);
            Object details = proxy(type, "the test's " + type.getSimpleName() + " of a Redis at " + host + ":" + port,
                    answers);
            register((GenericApplicationContext) context, type, details);
        };
    }

    private static Class<?> nested(Class<?> type, String name) {
        return ClassUtils.resolveClassName(type.getName() + "$" + name, type.getClassLoader());
    }

    /** The generation's {@code Node} record, made by its constructor (host, port). */
    private static Object node(Class<?> type, String host, int port) {
        try {
            return nested(type, "Node").getConstructor(String.class, int.class).newInstance(host, port);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("Cannot make a " + type.getName() + ".Node", ex);
        }
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
