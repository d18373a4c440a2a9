package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisSentinelExtension;

/** The starter behind Redis Sentinel, configured the usual way ({@code spring.data.redis.sentinel.*}). */
class SentinelGuardTests {

    private static final String TABLE = "sentinel_users";

    @RegisterExtension
    static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension("bloomguard-master");

    @BeforeAll
    static void createUsers() {
        GuardedApp.createUsers(TABLE, 20000);
    }

    @Test
    void guardsThroughSentinelAndReWarmsAfterAFlush() throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(SENTINEL.master().port(), "sentinel", TABLE,
                "SELECT id FROM " + TABLE, "spring.data.redis.sentinel.master=" + SENTINEL.masterName(),
                "spring.data.redis.sentinel.nodes=" + SENTINEL.sentinelAddress(), "bloom-guard.redis-timeout=2s")) {
            LettuceConnectionFactory factory = (LettuceConnectionFactory) context.getBean(RedisConnectionFactory.class);
            assertThat(factory.getSentinelConfiguration()).as("the application talks to Sentinel").isNotNull();
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            long absentKey = GuardedApp.absentId(filter);
            assertThat(directory.find(2)).isEqualTo(2);
            assertThatThrownBy(() -> directory.find(absentKey)).isInstanceOf(BloomGuardRejectedException.class);
            try (var connection = factory.getConnection()) {
                connection.serverCommands().flushAll();
            }
            assertThat(directory.find(absentKey)).as("bypassed while the filter is gone").isEqualTo(absentKey);
            Await.until("re-warmed through Sentinel", Duration.ofSeconds(30), filter::isReady);
            assertThatThrownBy(() -> directory.find(absentKey)).isInstanceOf(BloomGuardRejectedException.class);
            long created = directory.create();
            assertThat(directory.find(created)).isEqualTo(created);
        }
    }
}
