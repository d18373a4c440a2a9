package dev.bloomguard.spring.clients.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.clients.ClientsApp;
import dev.bloomguard.spring.clients.RedisConnectionDetailsBean;
import dev.bloomguard.testsupport.RedisServerExtension;

/**
 * An application on Redisson's starter whose Redis is described only by a connection-details
 * bean, while {@code spring.data.redis.*} names another Redis (the shared test Redis): Redisson
 * follows the bean, and so does the starter's own Lettuce connection. Run by the redisson-tests
 * execution.
 */
class RedissonConnectionDetailsTests {

    /** The Redis the connection-details bean describes, on a port of its own. */
    @RegisterExtension
    static final RedisServerExtension DESCRIBED = new RedisServerExtension();

    @Test
    void filtersLiveInTheRedisTheConnectionDetailsDescribe() {
        RedisServer described = DESCRIBED.server();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ClientsApp.class)
                .web(WebApplicationType.NONE)
                .initializers(RedisConnectionDetailsBean.standalone(described.host(), described.port(), null))
                .run("--spring.data.redis.host=" + RealServers.redis().host(),
                        "--spring.data.redis.port=" + RealServers.redis().port(),
                        "--bloom-guard.key-prefix=details-redisson", "--bloom-guard.redis-timeout=5s",
                        "--bloom-guard.filters.user.expected-insertions=20000")) {
            assertThat(context.getBean(RedisConnectionFactory.class).getClass().getName())
                    .startsWith("org.redisson.spring.data.");

            ClientsApp.guardsThrough(context, described, RealServers.redis());
        }
    }
}
