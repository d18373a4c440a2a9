package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.LongStream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.DelayingProxy;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.Await;

/**
 * A check's answer is judged by whether blocking was suspended when the check was sent, not
 * when its reply arrived. The day it matters: a rolling deploy changes the warmup query, the new
 * instance loads its query, and this (old) instance suspends blocking, since the live bitmap
 * lacks rows only its own query returns. A check of such a row reads that bitmap; before its
 * reply comes back (a busy machine, a GC pause), this instance reloads its own query and lifts
 * the suspension. Judged on arrival, the reply's clear bit was an "absent" and blocked the row.
 */
class SuspendedWhenSentTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(20_000, 0.01);
    private static final Duration HELD = Duration.ofMillis(1_500);
    private static final long ONLY_IN_OWN_QUERY = 15_000;

    /** The ways the starter asks: blocking, asynchronous, and as part of a batch. */
    enum Check {
        SYNC(filter -> CompletableFuture.supplyAsync(() -> filter.check(ONLY_IN_OWN_QUERY))),
        ASYNC(filter -> filter.checkAsync(ONLY_IN_OWN_QUERY)),
        BATCH(filter -> CompletableFuture.supplyAsync(() -> filter.checkAll(List.of(ONLY_IN_OWN_QUERY)).get(0)));

        final Function<RedisBloomFilter, CompletableFuture<Membership>> send;

        Check(Function<RedisBloomFilter, CompletableFuture<Membership>> send) {
            this.send = send;
        }
    }

    @ParameterizedTest
    @EnumSource(Check.class)
    void aReplyReadBeforeTheOwnQueryWasLoadedDoesNotBlockOnceTheSuspensionIsLifted(Check check) throws Exception {
        AtomicBoolean holding = new AtomicBoolean();
        try (RedisServer redis = RedisServer.start();
                DelayingProxy proxy = DelayingProxy.start(redis.port(), reply -> holding.get(), HELD)) {
            LettuceClients direct = LettuceClients.standalone(redis.port());
            LettuceClients proxied = LettuceClients.standalone(proxy.port());
            try {
                String name = "suspended-" + check;
                // The new instance's query: the first 10,000 rows only.
                RedisBloomFilter otherInstance = RedisBloomFilter
                        .builder(name, GEOMETRY, LettuceBitmapStore.create(direct, Duration.ofSeconds(10))).build();
                otherInstance.load(LongStream.rangeClosed(1, 10_000).boxed());
                RedisBloomFilter thisInstance = RedisBloomFilter
                        .builder(name, GEOMETRY, LettuceBitmapStore.create(proxied, Duration.ofSeconds(10)))
                        .checkTimeout(Duration.ofSeconds(5)).build();
                assertThat(thisInstance.check(1L)).as("connected").isEqualTo(Membership.PRESENT);
                thisInstance.hold(Hold.FOREIGN_SOURCE);

                holding.set(true);
                long repliesBefore = proxy.replies();
                CompletableFuture<Membership> answer = check.send.apply(thisInstance);
                awaitHeldReply(proxy, repliesBefore);
                holding.set(false);
                // While the reply is held: this instance loads its own query (over a connection of its
                // own, as the load does not wait behind a check) and blocks again.
                otherInstance.load(LongStream.rangeClosed(1, 20_000).boxed());
                thisInstance.release(Hold.FOREIGN_SOURCE);

                assertThat(answer.get(10, TimeUnit.SECONDS)).as("a row of the own query, read while suspended")
                        .isNotEqualTo(Membership.ABSENT).isEqualTo(Membership.NOT_READY);
                assertThat(thisInstance.check(ONLY_IN_OWN_QUERY)).isEqualTo(Membership.PRESENT);
                // The same check blocks what is in neither query, now that blocking is back.
                long blocked = LongStream.rangeClosed(30_001, 31_000).mapToObj(thisInstance::check)
                        .filter(Membership.ABSENT::equals).count();
                assertThat(blocked).isGreaterThan(950);
            }
            finally {
                proxied.close();
                direct.close();
            }
        }
    }

    /** Until Redis has answered the check (its reply is the proxy's next read, now held). */
    private static void awaitHeldReply(DelayingProxy proxy, long repliesBefore) {
        Await.until("the check reached Redis", HELD.dividedBy(2), () -> proxy.replies() != repliesBefore);
    }
}
