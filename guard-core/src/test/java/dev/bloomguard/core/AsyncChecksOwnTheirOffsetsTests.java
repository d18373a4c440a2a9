package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.DelayingProxy;
import dev.bloomguard.testsupport.RedisServerExtension;

/**
 * A mirrored check works its key's offsets out in a buffer of the calling thread, so that a hit
 * allocates nothing. An asynchronous check the mirror cannot answer is still on its way (its
 * command not yet written, its reply not yet read) when that thread checks its next key: it must
 * own its offsets by then. Present and absent keys in turn, each reply held back, answer exactly
 * what an unmirrored filter answers.
 */
class AsyncChecksOwnTheirOffsetsTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void asynchronousChecksInFlightTogetherEachAnswerForTheirOwnKey() throws Exception {
        FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
        try (DelayingProxy proxy = DelayingProxy.start(redis.port(), reply -> true, Duration.ofMillis(20))) {
            LettuceClients direct = LettuceClients.standalone(redis.port());
            LettuceClients proxied = LettuceClients.standalone(proxy.port());
            RedisBloomFilter plain = RedisBloomFilter
                    .builder("owned-offsets", geometry, LettuceBitmapStore.create(direct, Duration.ofSeconds(10))).build();
            RedisBloomFilter mirrored = RedisBloomFilter
                    .builder("owned-offsets", geometry, LettuceBitmapStore.create(proxied, Duration.ofSeconds(10)))
                    .checkTimeout(Duration.ofSeconds(10)).mirror(MirrorSettings.of(1 << 20, Duration.ofMinutes(10)))
                    .build();
            try {
                plain.load(LongStream.rangeClosed(1, 5_000).boxed());
                List<Long> keys = new ArrayList<>();
                List<Membership> expected = new ArrayList<>();
                for (long present = 1, absent = 1_000_000; keys.size() < 2_000; present++, absent++) {
                    keys.add(present);
                    keys.add(absent);
                }
                keys.forEach(key -> expected.add(plain.check(key)));
                assertThat(expected).contains(Membership.PRESENT, Membership.ABSENT);

                assertThat(checkAllAsync(mirrored, keys)).isEqualTo(expected);
                assertThat(checkAllAsync(mirrored, keys)).as("again, the mirror told of what Redis confirmed")
                        .isEqualTo(expected);
            }
            finally {
                mirrored.close();
                plain.close();
                proxied.close();
                direct.close();
            }
        }
    }

    /** One asynchronous check per key, every one sent before any answer is awaited. */
    private static List<Membership> checkAllAsync(RedisBloomFilter filter, List<Long> keys) {
        List<CompletableFuture<Membership>> answers = new ArrayList<>();
        keys.forEach(key -> answers.add(filter.checkAsync(key)));
        return answers.stream().map(CompletableFuture::join).toList();
    }
}
