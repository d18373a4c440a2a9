package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.core.upkeep.FilterUpkeep;
import dev.bloomguard.core.upkeep.RetriedAdds;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The README's "Without Spring" example, line for line, on a real Redis, with no Spring on the class
 * path: its two blocks, with Redis refusing writes in between, so that the add of 42 is refused for
 * real and handed to {@link RetriedAdds}, as the starter hands its own.
 */
class WithoutSpringExampleTests {

    @Test
    void readmeExampleLoadsChecksAndRetriesARefusedAddWithoutBlockingMeanwhile() {
        try (RedisServer redis = RedisServer.start()) {
            // 42 is the row that commits after the load.
            List<Long> userIds = LongStream.rangeClosed(1, 10_000).filter(id -> id != 42).boxed().toList();
            String redisUrl = "redis://127.0.0.1:" + redis.port();

            RedisClient redisClient = RedisClient.create(redisUrl);   // redis://host:6379, rediss://..., redis-sentinel://...
            LettuceConnections connections = LettuceConnections.of(redisClient);
            LettuceBitmapStore store = LettuceBitmapStore.create(connections, Duration.ofSeconds(10));
            RedisBloomFilter users = RedisBloomFilter.builder("user", FilterGeometry.of(1_000_000, 0.01), store).build();
            FilterUpkeep upkeep = FilterUpkeep.of(users).start();  // what the starter schedules, without Spring
            RetriedAdds retried = RetriedAdds.builder(filter -> CompletableFuture.runAsync(() -> filter.load(userIds.stream()))).build();
            users.load(userIds.stream());          // build in memory, upload, swap

            RedisCommands<String, String> admin = redisClient.connect().sync();
            admin.configSet("min-replicas-to-write", "1"); // Redis refuses every write: the add of 42 fails

            try {                                  // once the row of 42 has committed
                users.add(42L);
            }
            catch (BitmapStoreException refused) { // Redis out of memory, a read-only replica, ...
                retried.retry(users, List.of(42L)); // retried until it lands; meanwhile the filter blocks nothing here
            }
            users.check(-1L);                      // ABSENT, PRESENT, NOT_READY or UNAVAILABLE

            assertThat(users.holds()).as("held while the refused add waits").contains(Hold.PENDING_ADDS);
            assertThat(users.check(42L)).as("the committed row whose add Redis refused").isNotEqualTo(Membership.ABSENT);
            assertThat(LongStream.rangeClosed(-1_000, -1).mapToObj(users::check))
                    .as("absent ids while the add waits: this instance blocks none").doesNotContain(Membership.ABSENT);
            admin.configSet("min-replicas-to-write", "0");
            Await.until("the refused add of 42 landed", Duration.ofSeconds(10), () -> users.check(42L) == Membership.PRESENT);
            Await.until("the filter blocks again once the add landed", Duration.ofSeconds(10),
                    () -> !users.holds().contains(Hold.PENDING_ADDS));

            retried.close();
            upkeep.close();
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
