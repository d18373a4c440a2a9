package dev.bloomguard.spring.clients.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import dev.bloomguard.spring.clients.AbstractClientApplicationTests;
import dev.bloomguard.spring.clients.ClientsApp;

/**
 * An application on Jedis (spring.data.redis.client-type=jedis, clients/jedis.yml): the starter
 * finds Jedis's connection factory, not Lettuce's, and guards through a Lettuce connection of its
 * own to the Redis spring.data.redis names. Run by the jedis-tests execution, whose class path has
 * Jedis and no Redisson.
 */
@SpringBootTest(classes = ClientsApp.class, properties = {
        "spring.config.import=classpath:clients/jedis.yml",
        "spring.main.web-application-type=none",
        "bloom-guard.key-prefix=clients-jedis",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.user.expected-insertions=20000" })
class JedisApplicationTests extends AbstractClientApplicationTests {

    @Test
    void theApplicationsConnectionFactoryIsJedis() {
        assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
    }
}
