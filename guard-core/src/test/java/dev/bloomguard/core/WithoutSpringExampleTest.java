package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.embedded.RedisServer;

/** The README's "Without Spring" example, line for line, on a real Redis. */
class WithoutSpringExampleTest {

    @Test
    void readmeExampleLoadsAddsAndChecks() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory lettuceConnectionFactory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
            lettuceConnectionFactory.afterPropertiesSet();
            lettuceConnectionFactory.start();
            try {
                List<Long> userIds = LongStream.rangeClosed(1, 10_000).boxed().toList();

                LettuceBitmapStore store = LettuceBitmapStore.create(lettuceConnectionFactory, Duration.ofSeconds(10));
                RedisBloomFilter users = RedisBloomFilter.builder("user", FilterGeometry.of(1_000_000, 0.01), store).build();
                users.load(userIds.stream());          // build in memory, upload, swap
                users.add(42L);
                users.mightContain("42");              // true
                users.check(-1L);                      // ABSENT, PRESENT, NOT_READY or UNAVAILABLE

                assertThat(users.mightContain("42")).isTrue();
                // One by one, as a guard asks: the builder's default check timeout (50 ms) is meant for single checks.
                assertThat(userIds.stream().map(users::check)).doesNotContain(Membership.ABSENT)
                        .filteredOn(Membership.PRESENT::equals).hasSizeGreaterThan(9_900);
                long absent = LongStream.rangeClosed(-1_000, -1).filter(id -> users.check(id) == Membership.ABSENT).count();
                assertThat(absent).as("absent ids the filter blocks").isGreaterThan(950);
                users.close();
            }
            finally {
                lettuceConnectionFactory.destroy();
            }
        }
    }
}
