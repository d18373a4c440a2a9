package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.testsupport.Await;

/** The starter behind Redis Sentinel, configured the usual way ({@code spring.data.redis.sentinel.*}). */
class SentinelGuardTests {

    private static final String TABLE = "sentinel_users";

    private static RedisServer master;
    private static RedisServer sentinel;

    @BeforeAll
    static void startServers() {
        GuardedApp.createUsers(TABLE, 20000);
        master = RedisServer.start();
        sentinel = RedisServer.startSentinel("bloomguard-master", master.port());
    }

    @AfterAll
    static void stopServers() {
        sentinel.close();
        master.close();
    }

    @Test
    void guardsThroughSentinelAndReWarmsAfterAFlush() throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(master.port(), "sentinel", TABLE,
                "SELECT id FROM " + TABLE, "spring.data.redis.sentinel.master=bloomguard-master",
                "spring.data.redis.sentinel.nodes=127.0.0.1:" + sentinel.port(), "bloom-guard.redis-timeout=2s")) {
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
