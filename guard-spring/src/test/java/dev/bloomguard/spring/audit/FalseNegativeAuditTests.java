package dev.bloomguard.spring.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Mono;

/**
 * The audit in production ({@code audit.sample-rate}): the day a present key's bits are cleared in
 * Redis behind the guard's back (an add Redis lost, a restart from an older snapshot that nothing
 * noticed), the guard blocks a customer. The audit looks the blocked call up again, finds the row
 * in PostgreSQL, counts the false negative, adds the key back, and asks for a rebuild: the customer
 * passes again without anyone rebuilding by hand. The same audit of calls that were rightly
 * blocked finds nothing and counts nothing.
 */
@SpringBootTest(classes = FalseNegativeAuditTests.App.class, webEnvironment = WebEnvironment.NONE, properties = {
        "bloom-guard.key-prefix=audit",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.account.expected-insertions=10000",
        "bloom-guard.filters.account.fpp=0.01",
        "bloom-guard.filters.account.warmup.sql=SELECT id FROM audit_accounts",
        "bloom-guard.filters.account.warmup.blocking=true",
        "bloom-guard.filters.account.audit.sample-rate=1.0" })
class FalseNegativeAuditTests {

    /** Present ids are the even numbers 2..4,000; odd numbers were never inserted. */
    private static final int ACCOUNTS = 2_000;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("DROP TABLE IF EXISTS audit_accounts", "CREATE TABLE audit_accounts (id BIGINT PRIMARY KEY)",
                "INSERT INTO audit_accounts SELECT 2 * g FROM generate_series(1, " + ACCOUNTS + ") g");
        RealServers.registerRedis(registry);
        RealServers.registerPostgres(registry);
    }

    @Autowired
    Accounts accounts;

    @Autowired
    BloomFilterRegistry filters;

    @Autowired
    StringRedisTemplate redis;

    @Autowired
    MeterRegistry meters;

    @Test
    void aRealKeyBlockedAfterItsBitsWereLostIsFoundCountedAndPassesAgainWithoutARebuildByHand() {
        foundCountedAndRepaired(1_000, id -> accounts.find(id).isPresent());
    }

    @Test
    void soForAMethodThatReturnsACompletionStage() {
        foundCountedAndRepaired(1_002, id -> accounts.findAsync(id).join().isPresent());
    }

    @Test
    void soForAMethodThatReturnsAMono() {
        foundCountedAndRepaired(1_004, id -> accounts.findMono(id).blockOptional().isPresent());
    }

    /** The day: {@code present}'s bits are lost; {@code call} (true: found) is refused, audited, repaired. */
    private void foundCountedAndRepaired(long present, Predicate<Long> call) {
        assertThat(call.test(present)).isTrue();
        Instant liveBefore = liveSince();
        double falseNegativesBefore = falseNegatives();
        double foundBefore = audits("found");
        clearBitsOf(present);

        // The day itself: the customer is refused by the guard, and the method is not run for them.
        int callsBefore = accounts.calls();
        assertThatThrownBy(() -> call.test(present)).satisfies(error -> assertThat(rejection(error)).isTrue());

        // The audit runs the lookup once more, behind the caller's back, finds the row and repairs.
        awaitTrue(() -> falseNegatives() == falseNegativesBefore + 1, "the audit counts the false negative");
        assertThat(accounts.calls()).isEqualTo(callsBefore + 1);
        assertThat(call.test(present)).as("the key passes again, added back by the audit").isTrue();
        // And it asked for the rebuild that brings back any other key the same loss took (once per
        // cooldown: the test that runs first sees it).
        if (audits("found") == 1) {
            awaitTrue(() -> liveSince().isAfter(liveBefore), "the audit asks for a rebuild");
        }
        assertThat(falseNegatives()).isEqualTo(falseNegativesBefore + 1);
        assertThat(audits("found")).isEqualTo(foundBefore + 1);
    }

    /** The guard's rejection, as each return kind reports it. */
    private static boolean rejection(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof BloomGuardRejectedException) {
                return true;
            }
        }
        return false;
    }

    @Test
    void blocksThatWereRightAreAuditedAndCountNothing() {
        double falseNegativesBefore = falseNegatives();
        double notFoundBefore = audits("not-found");
        int blocked = 0;
        int absent = 500;
        for (long id = 10_001; id < 10_001 + 2L * absent; id += 2) {
            try {
                assertThat(accounts.find(id)).isEmpty();
            }
            catch (BloomGuardRejectedException ex) {
                blocked++;
            }
        }
        // fpp 0.01: the filter blocks nearly every absent id, audit or not.
        assertThat(blocked).isGreaterThanOrEqualTo(absent * 95 / 100);
        int audited = blocked;
        awaitTrue(() -> audits("not-found") + audits("dropped") - notFoundBefore >= audited,
                "every sampled block is looked up or counted as dropped");
        assertThat(audits("not-found") - notFoundBefore).as("lookups made").isPositive();
        assertThat(falseNegatives()).as("false negatives among right blocks").isEqualTo(falseNegativesBefore);
    }

    private void clearBitsOf(long key) {
        RedisBloomFilter filter = filters.filter("account");
        FilterGeometry geometry = filter.geometry();
        assertThat(geometry.shards()).isEqualTo(1);
        long[] offsets = BitPositions.of(filter.hash(), key, geometry.bits(), geometry.hashes());
        byte[] live = filter.keys().live(0).getBytes(StandardCharsets.UTF_8);
        redis.execute((RedisCallback<Void>) connection -> {
            clear(connection, live, offsets);
            return null;
        });
        assertThat(filter.check(key).isAbsent()).as("the key's bits are gone").isTrue();
    }

    private static void clear(RedisConnection connection, byte[] live, long[] offsets) {
        for (long offset : offsets) {
            connection.stringCommands().setBit(live, offset, false);
        }
    }

    private double falseNegatives() {
        var counter = meters.find(BloomGuardMetricNames.FALSE_NEGATIVES).tag("filter", "account").counter();
        return counter == null ? 0 : counter.count();
    }

    private double audits(String result) {
        var counter = meters.find(BloomGuardMetricNames.AUDITS).tag("filter", "account").tag("result", result)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    /** When the live bitmap was swapped in: later once a rebuild swapped another in. */
    private Instant liveSince() {
        return filters.filter("account").liveSince().orElseThrow();
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Accounts accounts(JdbcTemplate jdbc) {
            return new Accounts(jdbc);
        }
    }

    static class Accounts {

        private final JdbcTemplate jdbc;
        private final AtomicInteger calls = new AtomicInteger();

        Accounts(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @BloomGuard(filter = "account", key = "#id")
        public Optional<Long> find(long id) {
            return lookUp(id);
        }

        @BloomGuard(filter = "account", key = "#id")
        public CompletableFuture<Optional<Long>> findAsync(long id) {
            return CompletableFuture.supplyAsync(() -> lookUp(id));
        }

        @BloomGuard(filter = "account", key = "#id")
        public Mono<Long> findMono(long id) {
            return Mono.fromCallable(() -> lookUp(id).orElse(null));
        }

        private Optional<Long> lookUp(long id) {
            calls.incrementAndGet();
            List<Long> found = jdbc.queryForList("SELECT id FROM audit_accounts WHERE id = ?", Long.class, id);
            return found.stream().findFirst();
        }

        int calls() {
            return calls.get();
        }
    }
}
