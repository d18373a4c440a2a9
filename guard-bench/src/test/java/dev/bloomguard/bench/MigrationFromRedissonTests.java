package dev.bloomguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.embedded.RedisServer;

/**
 * The code of {@code docs/migrating-from-redisson.md}, run against one real Redis with both
 * libraries: each {@code RBloomFilter} call and its bloom-guard counterpart, and the move of the
 * data, which is a load from the source of truth (the two do not share bits: other hashing, other
 * key names).
 */
class MigrationFromRedissonTests {

    @Test
    void everyRedissonCallHasABloomGuardCounterpartAndTheDataMovesByALoad() {
        List<Long> userIds = LongStream.rangeClosed(1, 10_000).map(id -> 2 * id).boxed().toList();
        try (RedisServer redis = RedisServer.start()) {
            Config config = new Config();
            config.useSingleServer().setAddress("redis://" + redis.host() + ":" + redis.port());
            RedissonClient redisson = Redisson.create(config);
            RedisClient lettuce = RedisClient.create("redis://" + redis.host() + ":" + redis.port());
            try {
                // Before: Redisson
                RBloomFilter<Long> before = redisson.getBloomFilter("users");
                before.tryInit(1_000_000L, 0.01);
                before.add(userIds);
                assertThat(before.contains(42L)).isTrue();
                assertThat(before.contains(-1L)).isFalse();
                assertThat(before.count()).isBetween(9_500L, 10_500L);

                // After: bloom-guard
                LettuceBitmapStore store = LettuceBitmapStore.create(LettuceConnections.of(lettuce), Duration.ofSeconds(10));
                RedisBloomFilter users = RedisBloomFilter.builder("user", FilterGeometry.of(1_000_000, 0.01), store)
                        .checkTimeout(Duration.ofSeconds(1)).build();   // a check gives up after 50 ms by default
                boolean beforeLoad = users.mightContain(-1L);  // true: never loaded, so never "absent"
                users.load(userIds.stream());                  // the data moves by a load from the source of truth
                users.add(20_002L);                            // RBloomFilter.add
                boolean known = users.mightContain(42L);       // RBloomFilter.contains: true
                Membership absent = users.check(-1L);         // ABSENT
                long count = users.status().approximateCount(); // RBloomFilter.count

                assertThat(beforeLoad).isTrue();
                assertThat(users.mightContain(-1L)).isFalse();
                assertThat(known).isTrue();
                assertThat(users.mightContain(20_002L)).isTrue();
                assertThat(absent).isEqualTo(Membership.ABSENT);
                assertThat(count).isBetween(9_500L, 10_500L);
                for (int from = 0; from < userIds.size(); from += 1_000) {
                    assertThat(users.checkAll(userIds.subList(from, from + 1_000))).containsOnly(Membership.PRESENT);
                }
                users.close();
            }
            finally {
                lettuce.shutdown();
                redisson.shutdown();
            }
        }
    }
}
