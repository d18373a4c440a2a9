package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * {@code single-flight}, on real Redis and PostgreSQL (for the transactions): a burst of calls
 * for one key that passed the filter costs one call of the method, and nothing makes a caller
 * see less than it would have seen alone: a call inside a transaction, or one that starts after
 * a {@code @BloomPut} of this instance, runs on its own.
 */
@SpringBootTest(classes = SingleFlightTests.App.class, properties = { "bloom-guard.key-prefix=flight",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.item.expected-insertions=1000", "bloom-guard.filters.item.single-flight=true",
        "bloom-guard.filters.plain.expected-insertions=1000" })
class SingleFlightTests {

    private static final int CALLERS = 8;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.registerRedis(registry);
        RealServers.registerPostgres(registry);
    }

    @Autowired
    Items items;

    @Autowired
    BloomFilterRegistry registry;

    @Autowired
    TransactionTemplate transactions;

    private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);

    @BeforeEach
    void load() {
        registry.filter("item").load(LongStream.rangeClosed(1, 100).boxed());
        registry.filter("plain").load(LongStream.rangeClosed(1, 100).boxed());
        items.reset();
    }

    @AfterEach
    void release() {
        items.open();
        callers.shutdownNow();
    }

    @Test
    void aBurstForOneKeyRunsTheMethodOnceAndEveryCallerGetsItsResult() throws Exception {
        List<Future<String>> burst = burst(() -> items.find(7L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 1 && waiting() == CALLERS - 1);
        items.open();
        for (Future<String> call : burst) {
            assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #1");
        }
        assertThat(items.calls()).as("one call for the whole burst").isEqualTo(1);

        assertThat(items.find(7L)).as("a call after the flight landed runs again").isEqualTo("item 7 #2");
    }

    @Test
    void withoutSingleFlightEveryCallerRunsTheMethod() throws Exception {
        List<Future<String>> burst = burst(() -> items.findPlain(7L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == CALLERS);
        items.open();
        for (Future<String> call : burst) {
            assertThat(call.get(10, TimeUnit.SECONDS)).startsWith("plain 7 #");
        }
    }

    @Test
    void absentKeysAreStillBlockedBeforeAnyFlight() {
        RedisBloomFilter filter = registry.filter("item");
        List<Long> absent = LongStream.rangeClosed(1_000, 1_300).boxed().toList();
        long blocked = absent.stream().filter(id -> {
            try {
                items.find(id);
                return false;
            }
            catch (BloomGuardRejectedException ex) {
                return true;
            }
        }).count();
        assertThat(blocked).as("absent keys blocked of %s", absent.size()).isGreaterThan(absent.size() * 9 / 10);
        assertThat(items.calls()).isEqualTo(absent.size() - blocked);
        assertThat(filter.check(7L)).isEqualTo(Membership.PRESENT);
    }

    @Test
    void callersAndFlightsDoNotMixDifferentArgumentsOrMethods() throws Exception {
        Future<String> seven = callers.submit(() -> items.find(7L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 1);
        Future<String> eight = callers.submit(() -> items.find(8L));
        Future<String> other = callers.submit(() -> items.findOther(7L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 3);
        items.open();
        assertThat(seven.get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #1");
        assertThat(eight.get(10, TimeUnit.SECONDS)).startsWith("item 8 #");
        assertThat(other.get(10, TimeUnit.SECONDS)).startsWith("other 7 #");
    }

    @Test
    void aCallInsideATransactionNeitherJoinsNorLeadsAFlight() throws Exception {
        Future<String> outside = callers.submit(() -> items.find(7L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 1);

        String inside = transactions.execute(status -> items.find(7L));

        assertThat(inside).as("ran itself, in its transaction, while the flight was held").isEqualTo("item 7 #2 (tx)");
        items.open();
        assertThat(outside.get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #1");
    }

    @Test
    void aCallOnAThreadHoldingABoundSessionNeitherJoinsNorLeadsAFlight() throws Exception {
        Future<String> outside = callers.submit(() -> items.find(7L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 1);

        Object session = new Object();
        TransactionSynchronizationManager.bindResource(session, "an EntityManager of Open Session in View");
        try {
            assertThat(items.find(7L)).as("ran itself, with its session, while the flight was held")
                    .isEqualTo("item 7 #2 (bound)");
        }
        finally {
            TransactionSynchronizationManager.unbindResource(session);
        }
        items.open();
        assertThat(outside.get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #1");
    }

    @Test
    void aCallAfterAPutOfThisInstanceDoesNotJoinAFlightThatStartedBeforeIt() throws Exception {
        Future<String> before = callers.submit(() -> items.find(7L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 1);

        items.create(500L);
        Future<String> after = callers.submit(() -> items.find(7L));

        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 2);
        items.open();
        assertThat(before.get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #1");
        assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #2");
    }

    @Test
    void aCallAfterATransactionalPutCommitsDoesNotJoinAFlightThatStartedBeforeTheCommit() throws Exception {
        List<Future<String>> started = new ArrayList<>();
        transactions.executeWithoutResult(status -> {
            items.create(600L);
            started.add(callers.submit(() -> items.find(7L)));
            await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 1);
        });
        Future<String> afterCommit = callers.submit(() -> items.find(7L));

        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 2);
        items.open();
        assertThat(started.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #1");
        assertThat(afterCommit.get(10, TimeUnit.SECONDS)).isEqualTo("item 7 #2");
    }

    @Test
    void theLeadersExceptionReachesEveryCallerOfItsFlight() throws Exception {
        List<Future<String>> burst = burst(() -> items.find(13L));
        await().atMost(Duration.ofSeconds(10)).until(() -> items.calls() == 1 && waiting() == CALLERS - 1);
        items.open();
        for (Future<String> call : burst) {
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no item 13");
        }
        assertThat(items.calls()).isEqualTo(1);
    }

    private List<Future<String>> burst(Callable<String> call) {
        List<Future<String>> burst = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            burst.add(callers.submit(call));
        }
        return burst;
    }

    /** Callers parked in a flight another caller leads, not in the method. */
    private long waiting() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getState() == Thread.State.WAITING
                        || entry.getKey().getState() == Thread.State.TIMED_WAITING)
                .filter(entry -> List.of(entry.getValue()).stream().anyMatch(
                        frame -> frame.getClassName().endsWith("SingleFlight$Flight") && frame.getMethodName().equals("await")))
                .count();
    }

    public static class Items {

        private final AtomicInteger calls = new AtomicInteger();
        private volatile CountDownLatch gate = new CountDownLatch(1);

        void reset() {
            calls.set(0);
            gate = new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }

        int calls() {
            return calls.get();
        }

        @BloomGuard(filter = "item", key = "#id")
        public String find(long id) {
            return held("item " + id);
        }

        @BloomGuard(filter = "item", key = "#id")
        public String findOther(long id) {
            return held("other " + id);
        }

        @BloomGuard(filter = "plain", key = "#id")
        public String findPlain(long id) {
            return held("plain " + id);
        }

        @BloomPut(filter = "item", key = "#id")
        public long create(long id) {
            return id;
        }

        /** Calls outside a transaction, on a thread holding no resource, wait for the gate; others never do. */
        private String held(String what) {
            int call = calls.incrementAndGet();
            if (TransactionSynchronizationManager.isActualTransactionActive()) {
                return what + " #" + call + " (tx)";
            }
            if (!TransactionSynchronizationManager.getResourceMap().isEmpty()) {
                return what + " #" + call + " (bound)";
            }
            try {
                if (!gate.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted at the gate", ex);
            }
            if (what.equals("item 13")) {
                throw new IllegalStateException("no item 13");
            }
            return what + " #" + call;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        Items items() {
            return new Items();
        }
    }
}
