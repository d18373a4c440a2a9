package dev.bloomguard.core.upkeep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;

/**
 * The upkeep a plain-Java user of the core gets, with no Spring: the same jobs the starter runs,
 * from the same class. Each test is a day the promise needs a job for.
 */
class FilterUpkeepTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(10_000, 0.01);

    /**
     * Redis restarts from a snapshot older than this instance's last adds, and this instance adds
     * nothing afterwards: only the scheduled look at Redis's add counts can notice, and until it
     * does the lost keys' clear bits under a set marker block real rows.
     */
    @Test
    void keysWhoseAddsARewindLostAreLetThroughWithinTheRewindCheckIntervalWithoutAnyAdd() {
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(rewinding.port());
            try {
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-rewind", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).checkTimeout(Duration.ofSeconds(2))
                        .build();
                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                client.commands().save();
                List<Object> afterSnapshot = absentKeys(users, 50);
                users.addAll(afterSnapshot);
                try (FilterUpkeep upkeep = FilterUpkeep.of(users).rewindCheckInterval(Duration.ofMillis(500)).start()) {
                    rewinding.restart(); // from the snapshot: the 50 adds are gone; nobody adds again

                    Await.until("the upkeep noticed the rewind and made the filter not ready", Duration.ofSeconds(10),
                            () -> users.isComplete().equals(java.util.Optional.of(false)));
                    assertThat(users.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);

                    users.load(Stream.concat(LongStream.rangeClosed(1, 1_000).boxed(), afterSnapshot.stream()));
                    assertThat(users.checkAll(afterSnapshot)).containsOnly(Membership.PRESENT);
                    assertThat(blocked(users)).as("absent keys blocked once loaded again").isGreaterThan(950);
                }
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    /**
     * A filter in a rolling change bypasses until its first heartbeat has told the other
     * instances which generations it reads: the upkeep's heartbeat is what lets it block at all.
     */
    @Test
    void aFilterInARollingChangeBlocksOnceTheUpkeepsHeartbeatRan() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            try {
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-heartbeat", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).checkTimeout(Duration.ofSeconds(2))
                        .rollout(Duration.ofMillis(200), Duration.ofSeconds(2)).build();
                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                assertThat(blocked(users)).as("loaded, but no heartbeat: nothing blocked").isZero();

                try (FilterUpkeep upkeep = FilterUpkeep.of(users).start()) {
                    // A load that began before the instance's first heartbeat does not cover its writers.
                    Await.until("the upkeep's heartbeat, then a load", Duration.ofSeconds(10), Duration.ofMillis(300),
                            () -> {
                                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                                return blocked(users) > 950;
                            });
                    assertThat(users.checkAll(LongStream.rangeClosed(1, 1_000).boxed().toList()))
                            .containsOnly(Membership.PRESENT);
                }
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    @Test
    void badSettingsNameWhatWasWrong() {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterUpkeep.of(null))
                .withMessageContaining("filter");
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            try {
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-settings", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).build();
                assertThatIllegalArgumentException()
                        .isThrownBy(() -> FilterUpkeep.of(users).rewindCheckInterval(Duration.ZERO))
                        .withMessageContaining("rewind-check-interval of filter 'upkeep-settings'");
                assertThat(FilterUpkeep.journalPeriod(Duration.ofMinutes(10))).isEqualTo(Duration.ofMinutes(1));
                assertThat(FilterUpkeep.journalPeriod(Duration.ofMillis(500))).isEqualTo(Duration.ofSeconds(1));
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    private static long blocked(RedisBloomFilter filter) {
        try {
            List<Object> never = IntStream.range(0, 1_000).mapToObj(i -> (Object) ("never-" + i)).toList();
            return filter.checkAll(never).stream().filter(Membership::isAbsent).count();
        }
        catch (BitmapStoreException ex) {
            return 0;
        }
    }

    private static List<Object> absentKeys(RedisBloomFilter filter, int count) {
        List<Object> candidates = LongStream.range(0, 1_000).mapToObj(i -> (Object) ("absent-" + i)).toList();
        List<Membership> answers = filter.checkAll(candidates);
        return AbsentKeys.first(count, IntStream.range(0, candidates.size()).boxed(),
                i -> answers.get(i) == Membership.ABSENT).stream().map(candidates::get).toList();
    }
}
