package dev.bloomguard.core.upkeep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.RealRedis;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * The retry queue of adds Redis refused, against a real Redis that refuses writes
 * ({@code min-replicas-to-write}). Once it gives up and asks for a re-warm, the rows whose adds
 * are refused while that re-warm runs must not be dropped: its source may have been read before
 * they committed.
 */
class RetriedAddsTests {

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

    @Test
    void anAddRefusedWhileTheReWarmRunsIsRetriedOnceItIsLive() throws Exception {
        RedisCommands<byte[], byte[]> admin = REDIS.client().commands();
        try (RetriedAdds pending = retriedAdds(1);
                RedisBloomFilter filter = REDIS.filter(FilterGeometry.of(10_000, 0.01)).build()) {
            filter.load(LongStream.rangeClosed(1, 1_000).boxed());
            admin.configSet("min-replicas-to-write", "1");
            try {
                pending.retry(filter, List.of(2_001L, 2_002L)); // over capacity: gives up, asks for the re-warm
                assertThat(filter.holds().contains(Hold.PENDING_ADDS)).isTrue();
                // A row commits while the re-warm reads a source that predates it; its add is refused too.
                pending.retry(filter, List.of(2_003L));
            }
            finally {
                admin.configSet("min-replicas-to-write", "0");
            }
            rewarm.complete(null); // the re-warm is live: without 2,003

            Await.until("the refused add landed after the re-warm", Duration.ofSeconds(5),
                    () -> filter.check(2_003L) == Membership.PRESENT);
            assertThat(filter.check(2_003L)).isEqualTo(Membership.PRESENT);
            Await.until("the queue lets go once it landed", Duration.ofSeconds(5), () -> !filter.holds().contains(Hold.PENDING_ADDS));
            long blocked = LongStream.rangeClosed(5_001, 6_000).mapToObj(filter::check)
                    .filter(Membership.ABSENT::equals).count();
            assertThat(blocked).as("the filter still blocks what nobody added").isGreaterThan(950);
        }
    }

    /**
     * A retry is in flight (Redis slow to answer it) when the queue overflows and gives up for a
     * re-warm, and a row commits while that re-warm runs: the landed retry must take only its own
     * keys off the queue, never the new one, whose add is still owed once the re-warm is live.
     */
    @Test
    void aRetryLandingAfterTheQueueGaveUpTakesNoKeyQueuedSinceOffTheQueue() throws Exception {
        RedisCommands<byte[], byte[]> admin = REDIS.client().commands();
        try (RetriedAdds pending = retriedAdds(2);
                RedisBloomFilter filter = REDIS.filter(FilterGeometry.of(10_000, 0.01)).build()) {
            filter.load(LongStream.rangeClosed(1, 1_000).boxed());
            // Writes wait 1.5 s in Redis: the first retry is in flight meanwhile.
            admin.dispatch(CommandType.CLIENT, new StatusOutput<>(ByteArrayCodec.INSTANCE),
                    new CommandArgs<>(ByteArrayCodec.INSTANCE).add("PAUSE").add(1_500).add("WRITE"));
            pending.retry(filter, List.of(3_001L));
            Thread.sleep(400);
            pending.retry(filter, List.of(3_002L, 3_003L)); // over capacity: gives up, asks for the re-warm
            pending.retry(filter, List.of(3_004L)); // committed while the re-warm reads its source
            Await.until("the retry in flight landed", Duration.ofSeconds(5),
                    () -> filter.check(3_001L) == Membership.PRESENT);
            assertThat(filter.holds().contains(Hold.PENDING_ADDS)).as("held while the re-warm runs").isTrue();
            rewarm.complete(null); // the re-warm is live: without 3,004

            Await.until("the add queued during the re-warm landed", Duration.ofSeconds(5),
                    () -> filter.check(3_004L) == Membership.PRESENT);
            Await.until("the queue lets go once it landed", Duration.ofSeconds(5),
                    () -> !filter.holds().contains(Hold.PENDING_ADDS));
            long blocked = LongStream.rangeClosed(5_001, 6_000).mapToObj(filter::check)
                    .filter(Membership.ABSENT::equals).count();
            assertThat(blocked).as("the filter still blocks what nobody added").isGreaterThan(950);
        }
    }

    @Test
    void refusesSettingsThatCannotWork() {
        assertThatIllegalArgumentException().isThrownBy(() -> RetriedAdds.builder(null))
                .withMessageContaining("re-warm");
        assertThatIllegalArgumentException().isThrownBy(() -> RetriedAdds.builder(filter -> rewarm).capacity(0))
                .withMessageContaining("capacity (0)");
        assertThatIllegalArgumentException().isThrownBy(() -> RetriedAdds.builder(filter -> rewarm).giveUpAfter(Duration.ZERO))
                .withMessageContaining("give-up-after (PT0S)");
        assertThatIllegalArgumentException().isThrownBy(() -> RetriedAdds.builder(filter -> rewarm)
                .firstDelay(Duration.ofSeconds(2)).maxDelay(Duration.ofSeconds(1)).build())
                .withMessageContaining("longest delay (PT1S)");
    }

    private final CompletableFuture<Object> rewarm = new CompletableFuture<>();

    private RetriedAdds retriedAdds(int capacity) {
        return RetriedAdds.builder(filter -> rewarm).firstDelay(Duration.ofMillis(50)).maxDelay(Duration.ofMillis(200))
                .giveUpAfter(Duration.ofMinutes(2)).capacity(capacity).build();
    }
}
