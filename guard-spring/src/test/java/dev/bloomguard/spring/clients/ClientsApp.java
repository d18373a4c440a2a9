package dev.bloomguard.spring.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.data.Rejections;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * An application of whatever Redis client its class path and settings choose (Redisson, Jedis,
 * Lettuce), guarding one lookup; {@link #guardsThrough} is what every such application must do.
 * No database: the filter is loaded through the registry.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4 })
public class ClientsApp {

    /** Ids 1..PRESENT exist. */
    public static final long PRESENT = 2_000;

    public static class Users {

        @BloomGuard(filter = "user", key = "#id")
        public Optional<Long> find(long id) {
            return id >= 1 && id <= PRESENT ? Optional.of(id) : Optional.empty();
        }
    }

    @Bean
    Users users() {
        return new Users();
    }

    /**
     * Loads the filter with the present ids, then: every present id passes, nearly every absent one
     * is blocked, and the filter's bitmap is in {@code redis} (and, when given, not in {@code notIn}).
     */
    public static void guardsThrough(ApplicationContext context, RedisServer redis, RedisServer... notIn) {
        RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
        filter.load(LongStream.rangeClosed(1, PRESENT).boxed());
        Users users = context.getBean(Users.class);

        for (long id = 1; id <= PRESENT; id++) {
            assertThat(users.find(id)).as("present id %s", id).isPresent();
        }
        List<Long> absent = LongStream.rangeClosed(1_000_001, 1_002_000).boxed().toList();
        assertThat(Rejections.count(absent, users::find)).as("absent ids blocked").isGreaterThan(1_900);

        String bitmap = filter.keys().live(0);
        assertThat(exists(redis, bitmap)).as("the bitmap %s in the Redis on port %s", bitmap, redis.port()).isTrue();
        for (RedisServer other : notIn) {
            assertThat(exists(other, bitmap)).as("the bitmap %s in the Redis on port %s", bitmap, other.port()).isFalse();
        }
    }

    /** Whether {@code key} exists, asked on a connection of the test's own. */
    public static boolean exists(RedisServer redis, String key) {
        RedisClient client = RedisClient.create("redis://" + redis.host() + ":" + redis.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().exists(key) == 1;
        }
        finally {
            client.shutdown();
        }
    }

    /** Names of the clients connected to {@code redis}, as CLIENT LIST shows them. */
    public static List<String> clientNames(RedisServer redis) {
        RedisClient client = RedisClient.create("redis://" + redis.host() + ":" + redis.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().clientList().lines()
                    .map(line -> line.replaceAll(".* name=(\\S*).*", "$1")).toList();
        }
        finally {
            client.shutdown();
        }
    }
}
