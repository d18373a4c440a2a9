package dev.bloomguard.demo;

import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import dev.bloomguard.embedded.RedisServer;

/**
 * Starts a {@code redis-server} child process and points {@code spring.data.redis.host}/{@code port}
 * at it, when the application has no Redis of its own: none of {@code spring.data.redis.host},
 * {@code url}, {@code cluster.nodes} or {@code sentinel.nodes} is set.
 *
 * <p>Runs after {@code application.yml} has been read, so a Redis configured there, in the
 * environment or on the command line is used instead. At most one server is started per JVM,
 * however many application contexts start (as in a test suite); the server stops with the JVM.
 */
public class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    /** Name of the property source that carries the embedded server's address. */
    public static final String PROPERTY_SOURCE_NAME = "embeddedRedis";

    private static final List<String> REDIS_LOCATIONS = List.of("spring.data.redis.host", "spring.data.redis.url",
            "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.nodes");

    private static RedisServer server;

    private final Log log;

    public EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
        this.log = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (REDIS_LOCATIONS.stream().anyMatch(environment::containsProperty)) {
            return;
        }
        RedisServer redis = server();
        environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME,
                Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
        log.info("No spring.data.redis.host or url configured; using an embedded redis-server on " + redis.host() + ":"
                + redis.port());
    }

    private static synchronized RedisServer server() {
        if (server == null) {
            server = RedisServer.start();
        }
        return server;
    }

    /** After the config data post-processor has loaded {@code application.yml} and profiles. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
