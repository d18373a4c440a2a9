package dev.bloomguard.core.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.DelayingProxy;
import dev.bloomguard.embedded.RedisServer;

/**
 * Issue 13: a Redis that times out 40 % of checks, never two in a row (a real server behind a
 * proxy that holds back two replies in five past the check timeout). A breaker that only counts
 * failures in a row never opens, and every second or third caller waits the whole timeout.
 */
class RedisTimingOutOftenTests {

    private static final Duration CHECK_TIMEOUT = Duration.ofMillis(50);

    @Test
    void opensTheCircuitAndNeverBlocksAPresentKey() throws InterruptedException {
        AtomicBoolean faulty = new AtomicBoolean();
        try (RedisServer redis = RedisServer.start();
                // Held back longer than the timeout, but less than two: the reply after a held one is in time.
                DelayingProxy proxy = DelayingProxy.start(redis.port(),
                        reply -> faulty.get() && (reply % 5 == 0 || reply % 5 == 2), CHECK_TIMEOUT.multipliedBy(7).dividedBy(5))) {
            LettuceClients direct = connect(redis.port());
            LettuceClients proxied = connect(proxy.port());
            try {
                FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
                RedisBloomFilter.builder("flaky", geometry, LettuceBitmapStore.create(direct, Duration.ofSeconds(10)))
                        .build().load(LongStream.rangeClosed(1, 10_000).boxed());
                LettuceBitmapStore store = LettuceBitmapStore.create(proxied, Duration.ofSeconds(10));
                RedisBloomFilter filter = RedisBloomFilter.builder("flaky", geometry, store).checkTimeout(CHECK_TIMEOUT)
                        .build();

                List<Membership> healthy = checkEach(filter, LongStream.rangeClosed(1, 100));
                List<Membership> absent = checkEach(filter, LongStream.rangeClosed(20_001, 20_100));
                assertThat(healthy).containsOnly(Membership.PRESENT);
                assertThat(absent.stream().filter(Membership.ABSENT::equals).count()).as("absent keys blocked")
                        .isGreaterThan(90);
                assertThat(store.circuitState()).isEqualTo(CircuitBreaker.State.CLOSED);

                faulty.set(true);
                List<Membership> beforeOpen = new ArrayList<>();
                for (long id = 101; id <= 400 && store.circuitState() == CircuitBreaker.State.CLOSED; id++) {
                    beforeOpen.add(filter.check(id));
                }

                assertThat(store.circuitState()).as("after %s checks", beforeOpen.size())
                        .isEqualTo(CircuitBreaker.State.OPEN);
                assertThat(beforeOpen).doesNotContain(Membership.ABSENT, Membership.NOT_READY);
                long timedOut = beforeOpen.stream().filter(Membership.UNAVAILABLE::equals).count();
                assertThat((double) timedOut / beforeOpen.size()).as("share of checks that timed out, of %s",
                        beforeOpen.size()).isBetween(0.25, 0.55);
                Thread.sleep(CHECK_TIMEOUT.multipliedBy(4).toMillis()); // the replies held back arrive
                long repliesBefore = proxy.replies();
                assertThat(filter.check(1L)).as("open: answered without Redis").isEqualTo(Membership.UNAVAILABLE);
                assertThat(proxy.replies()).as("nothing went to Redis").isEqualTo(repliesBefore);
            }
            finally {
                proxied.close();
                direct.close();
            }
        }
    }

    private static List<Membership> checkEach(RedisBloomFilter filter, LongStream ids) {
        return ids.mapToObj(filter::check).toList();
    }

    private static LettuceClients connect(int port) {
        LettuceClients redisClient = LettuceClients.standalone(port);
        return redisClient;
    }
}
