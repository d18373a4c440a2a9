package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.core.upkeep.FilterUpkeep;
import dev.bloomguard.embedded.RedisServer;
import io.lettuce.core.RedisClient;

/** The README's "Without Spring" example, line for line, on a real Redis, with no Spring on the class path. */
class WithoutSpringExampleTests {

    @Test
    void readmeExampleLoadsAddsAndChecks() {
        try (RedisServer redis = RedisServer.start()) {
            List<Long> userIds = LongStream.rangeClosed(1, 10_000).boxed().toList();
            String redisUrl = "redis://127.0.0.1:" + redis.port();

            RedisClient redisClient = RedisClient.create(redisUrl);   // redis://host:6379, rediss://..., redis-sentinel://...
            LettuceConnections connections = LettuceConnections.of(redisClient);
            LettuceBitmapStore store = LettuceBitmapStore.create(connections, Duration.ofSeconds(10));
            RedisBloomFilter users = RedisBloomFilter.builder("user", FilterGeometry.of(1_000_000, 0.01), store).build();
            FilterUpkeep upkeep = FilterUpkeep.of(users).start();  // what the starter schedules, without Spring
            users.load(userIds.stream());          // build in memory, upload, swap
            users.add(42L);
            users.mightContain("42");              // true
            users.check(-1L);                      // ABSENT, PRESENT, NOT_READY or UNAVAILABLE
            upkeep.close();                        // before the filter
            users.close();

            assertThat(users.mightContain("42")).isTrue();
            // One by one, as a guard asks: the builder's default check timeout (50 ms) is meant for single checks.
            assertThat(userIds.stream().map(users::check)).doesNotContain(Membership.ABSENT)
                    .filteredOn(Membership.PRESENT::equals).hasSizeGreaterThan(9_900);
            long absent = LongStream.rangeClosed(-1_000, -1).filter(id -> users.check(id) == Membership.ABSENT).count();
            assertThat(absent).as("absent ids the filter blocks").isGreaterThan(950);
            connections.close();
            redisClient.shutdown();
        }
    }
}
