package dev.bloomguard.spring.clients.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.clients.ClientsApp;
import dev.bloomguard.spring.clients.RedisConnectionDetailsBean;
import dev.bloomguard.testsupport.RedisServerExtension;
import dev.bloomguard.testsupport.RedisTlsExtension;

/**
 * A Jedis application whose Redis is described only by a connection-details bean (as
 * Testcontainers' {@code @ServiceConnection} or Docker Compose makes one), while
 * {@code spring.data.redis.*} still names another Redis (the shared test Redis), which Boot then
 * ignores: the starter's own Lettuce connection follows the bean, as the application's Jedis
 * does, and finds the filters there and not in the Redis the properties name. With TLS, the
 * bundle named by the bean or by {@code spring.data.redis.ssl.bundle} is the only trust the
 * connection has. {@code bloom-guard.redis.*} still wins over the bean. Run by the jedis-tests
 * execution.
 */
class JedisConnectionDetailsTests {

    /** The Redis the connection-details bean describes, on a port of its own. */
    @RegisterExtension
    static final RedisServerExtension DESCRIBED = new RedisServerExtension();

    @RegisterExtension
    static final RedisTlsExtension TLS = new RedisTlsExtension();

    @Test
    void filtersLiveInTheRedisTheConnectionDetailsDescribe() {
        RedisServer described = DESCRIBED.server();
        try (ConfigurableApplicationContext context = start(
                RedisConnectionDetailsBean.standalone(described.host(), described.port(), null),
                "--bloom-guard.key-prefix=details-jedis")) {
            RedisConnectionFactory applications = context.getBean(RedisConnectionFactory.class);
            assertThat(applications).isInstanceOf(JedisConnectionFactory.class);
            assertThat(((JedisConnectionFactory) applications).getPort()).as("the application's own Jedis port")
                    .isEqualTo(described.port());

            ClientsApp.guardsThrough(context, described, RealServers.redis());
        }
    }

    @Test
    void bloomGuardRedisSettingsWinOverTheConnectionDetails() {
        RedisServer described = DESCRIBED.server();
        RedisServer own = RealServers.redis();
        try (ConfigurableApplicationContext context = start(
                RedisConnectionDetailsBean.standalone(described.host(), described.port(), null),
                "--bloom-guard.redis.host=" + own.host(), "--bloom-guard.redis.port=" + own.port(),
                "--bloom-guard.key-prefix=details-jedis-own")) {
            ClientsApp.guardsThrough(context, own, described);
        }
    }

    @Test
    void filtersReachTheTlsRedisOfTheConnectionDetailsWithTheirSslBundle() {
        try (ConfigurableApplicationContext context = start(
                RedisConnectionDetailsBean.standalone(TLS.server().host(), TLS.tlsPort(), "redis-tls"),
                "--spring.ssl.bundle.pem.redis-tls.truststore.certificate=file:" + TLS.certificate(),
                "--bloom-guard.key-prefix=details-jedis-tls")) {
            ClientsApp.guardsThrough(context, TLS.server(), RealServers.redis());
        }
    }

    @Test
    void filtersReachTheTlsRedisOfSpringDataRedisWithItsSslBundle() {
        try (ConfigurableApplicationContext context = start(null,
                "--spring.data.redis.host=" + TLS.server().host(), "--spring.data.redis.port=" + TLS.tlsPort(),
                "--spring.data.redis.ssl.bundle=redis-tls",
                "--spring.ssl.bundle.pem.redis-tls.truststore.certificate=file:" + TLS.certificate(),
                "--bloom-guard.key-prefix=spring-ssl-jedis")) {
            ClientsApp.guardsThrough(context, TLS.server(), RealServers.redis());
        }
    }

    /**
     * ClientsApp on Jedis, {@code spring.data.redis.*} on the shared test Redis unless {@code args}
     * say otherwise, and the connection-details bean {@code details} adds, if any.
     */
    private static ConfigurableApplicationContext start(
            ApplicationContextInitializer<ConfigurableApplicationContext> details, String... args) {
        List<String> all = new ArrayList<>();
        if (Arrays.stream(args).noneMatch(arg -> arg.startsWith("--spring.data.redis.port="))) {
            all.addAll(Arrays.stream(RealServers.redisProperties()).map(property -> "--" + property).toList());
        }
        all.addAll(List.of("--spring.data.redis.client-type=jedis", "--bloom-guard.redis-timeout=5s",
                "--bloom-guard.filters.user.expected-insertions=20000"));
        all.addAll(List.of(args));
        SpringApplicationBuilder application = new SpringApplicationBuilder(ClientsApp.class).web(WebApplicationType.NONE);
        if (details != null) {
            application.initializers(details);
        }
        return application.run(all.toArray(String[]::new));
    }
}
