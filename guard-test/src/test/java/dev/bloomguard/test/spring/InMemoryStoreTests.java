package dev.bloomguard.test.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;
import dev.bloomguard.test.memory.InMemoryBitmapStore;
import dev.bloomguard.testsupport.AbsentKeys;
import reactor.core.publisher.Mono;

/**
 * The starter's guard logic with an {@link InMemoryBitmapStore} declared as the application's
 * {@code BitmapStore}: no redis-server, no Redis auto-configuration, so these run in well under a
 * second. The Redis-backed tests (GuardedCallsTests, AsyncReturnTests) stay the proof against Redis;
 * these show that the starter yields to a declared store and that its decisions are the same on it.
 */
class InMemoryStoreTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("bloom-guard.filters.user.expected-insertions=1000",
                    "bloom-guard.filters.fresh.expected-insertions=1000");

    @Test
    void aLoadedKeyReachesTheMethodAndMostAbsentKeysAreRejectedBeforeIt() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(BitmapStore.class)).isInstanceOf(InMemoryBitmapStore.class);
            Users users = context.getBean(Users.class);
            RedisBloomFilter filter = loaded(context);

            assertThat(users.find(42)).isEqualTo("user 42");
            assertThat(LongStream.rangeClosed(1, 1_000).mapToObj(filter::check)).containsOnly(Membership.PRESENT);
            int before = users.reads();
            long rejected = LongStream.rangeClosed(1_000_001, 1_001_000).filter(id -> rejects(() -> users.find(id))).count();
            assertThat(rejected).as("absent keys rejected, of 1,000").isGreaterThan(950);
            assertThat(users.reads() - before).as("calls that reached the method").isEqualTo(1_000 - (int) rejected);
        });
    }

    @Test
    void aFilterNeverLoadedAdmitsEveryCall() {
        runner.run(context -> {
            Users users = context.getBean(Users.class);
            assertThat(context.getBean(BloomFilterRegistry.class).filter("fresh").check(7L)).isEqualTo(Membership.NOT_READY);

            assertThat(LongStream.rangeClosed(1_000_001, 1_000_100).mapToObj(users::findFresh)).hasSize(100);
            assertThat(users.reads()).isEqualTo(100);
        });
    }

    @Test
    void aKeySavedThroughBloomPutPassesAtOnce() {
        runner.run(context -> {
            Users users = context.getBean(Users.class);
            RedisBloomFilter filter = loaded(context);
            List<Long> fresh = absentKeys(filter, 10);
            assertThat(fresh).allSatisfy(id -> assertThat(rejects(() -> users.find(id))).isTrue());

            fresh.forEach(users::save);

            assertThat(fresh).allSatisfy(id -> assertThat(users.find(id)).isEqualTo("user " + id));
            assertThat(rejects(() -> users.find(absentKeys(filter, 1).get(0)))).as("the rest are still rejected").isTrue();
        });
    }

    @Test
    void aMonoReturningMethodIsGuardedWhenSubscribed() {
        runner.run(context -> {
            Users users = context.getBean(Users.class);
            RedisBloomFilter filter = loaded(context);
            long absent = absentKeys(filter, 1).get(0);

            assertThat(users.findLater(42).block()).isEqualTo("user 42");
            assertThatThrownBy(() -> users.findLater(absent).block()).isInstanceOf(BloomGuardRejectedException.class);
            assertThat(users.reads()).as("only the present key reached the method").isEqualTo(1);
        });
    }

    /** The starter's Redis connection is never made: nothing connects to the Redis its settings name. */
    @Test
    void theStarterOpensNoRedisConnectionBesideADeclaredStore() throws IOException {
        try (ServerSocket redis = new ServerSocket(0)) {
            runner.withPropertyValues("bloom-guard.redis.host=127.0.0.1", "bloom-guard.redis.port=" + redis.getLocalPort())
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Users users = context.getBean(Users.class);
                        RedisBloomFilter filter = loaded(context);
                        assertThat(users.find(42)).isEqualTo("user 42");
                        assertThat(rejects(() -> users.find(absentKeys(filter, 1).get(0)))).isTrue();
                    });
            redis.setSoTimeout(200);
            assertThatThrownBy(redis::accept).as("a connection to the configured Redis")
                    .isInstanceOf(SocketTimeoutException.class);
        }
    }

    private static RedisBloomFilter loaded(AssertableApplicationContext context) {
        RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        return filter;
    }

    private static List<Long> absentKeys(RedisBloomFilter filter, int count) {
        return AbsentKeys.first(count, LongStream.iterate(2_000_000, id -> id + 1), id -> filter.check(id) == Membership.ABSENT);
    }

    private static boolean rejects(Runnable call) {
        try {
            call.run();
            return false;
        }
        catch (BloomGuardRejectedException rejected) {
            return true;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {

        @Bean
        BitmapStore bitmapStore() {
            return InMemoryBitmapStore.create();
        }

        @Bean
        Users users() {
            return new Users();
        }
    }

    static class Users {

        private final AtomicInteger reads = new AtomicInteger();

        /** A method, not the field: the bean is a class-based proxy, whose own fields are unset. */
        public int reads() {
            return reads.get();
        }

        @BloomGuard(filter = "user", key = "#id")
        public String find(long id) {
            reads.incrementAndGet();
            return "user " + id;
        }

        @BloomGuard(filter = "user", key = "#id")
        public Mono<String> findLater(long id) {
            return Mono.fromSupplier(() -> find(id));
        }

        @BloomGuard(filter = "fresh", key = "#id")
        public String findFresh(long id) {
            reads.incrementAndGet();
            return "fresh " + id;
        }

        @BloomPut(filter = "user", key = "#result")
        public long save(long id) {
            return id;
        }
    }
}
