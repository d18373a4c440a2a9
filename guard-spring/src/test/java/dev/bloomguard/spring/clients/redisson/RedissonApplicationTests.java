package dev.bloomguard.spring.clients.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.bloomguard.spring.clients.AbstractClientApplicationTests;
import dev.bloomguard.spring.clients.ClientsApp;

/**
 * An application on Redisson's Spring Boot starter, configured only as Redisson wants
 * (clients/redisson.yml): the starter finds Redisson's connection factory, not Lettuce's, and
 * guards through a Lettuce connection of its own to the Redis spring.data.redis names.
 * Run by the redisson-tests execution, whose class path has Redisson and no Jedis.
 */
@SpringBootTest(classes = ClientsApp.class, properties = {
        "spring.config.import=classpath:clients/redisson.yml",
        "spring.main.web-application-type=none",
        "bloom-guard.key-prefix=clients-redisson",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.user.expected-insertions=20000" })
class RedissonApplicationTests extends AbstractClientApplicationTests {

    @Test
    void theApplicationsConnectionFactoryIsRedissons() {
        assertThat(context.getBean(RedisConnectionFactory.class).getClass().getName())
                .startsWith("org.redisson.spring.data.");
    }
}
