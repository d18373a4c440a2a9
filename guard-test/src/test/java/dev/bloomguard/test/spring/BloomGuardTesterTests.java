package dev.bloomguard.test.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;
import dev.bloomguard.spring.autoconfigure.BloomGuardMetricsAutoConfiguration;
import dev.bloomguard.test.memory.InMemoryBitmapStore;
import dev.bloomguard.testsupport.AbsentKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The tester's auto-configuration with the in-memory store's: what {@link BloomGuardTester}
 * promises a test, and its counts beside the application's own meters.
 */
class BloomGuardTesterTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardInMemoryAutoConfiguration.class,
                    BloomGuardAutoConfiguration.class, BloomGuardMetricsAutoConfiguration.class,
                    BloomGuardTesterAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("bloom-guard.filters.user.expected-insertions=1000",
                    "bloom-guard.filters.account.expected-insertions=1000",
                    "bloom-guard.filters.account.on-absent=return-empty");

    @Test
    void theFiltersAreInMemoryAndATesterIsThere() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(BloomGuardTester.class);
            assertThat(context.getBean(BitmapStore.class)).isInstanceOf(InMemoryBitmapStore.class);
        });
    }

    @Test
    void aPreloadedFilterPassesItsKeysAndRejectsMostAbsentOnes() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);

            tester.preload("user", LongStream.rangeClosed(1, 1_000).boxed().toList());

            LongStream.rangeClosed(1, 1_000).forEach(id -> tester.assertPassed(() -> users.find(id)));
            assertThat(users.reads()).isEqualTo(1_000);
            assertThat(tester.passed("user")).isEqualTo(1_000);
            long rejected = LongStream.rangeClosed(1_000_001, 1_001_000)
                    .filter(id -> tester.rejects(() -> users.find(id))).count();
            assertThat(rejected).as("absent keys rejected, of 1,000").isGreaterThan(950);
            assertThat(tester.blocked("user")).isEqualTo(rejected);
            assertThat(users.reads() - 1_000L).isEqualTo(1_000 - tester.blocked("user"));
        });
    }

    @Test
    void aSecondPreloadAddsToTheFirst() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L, 2L, 3L);
            long fresh = absent(context, 1).get(0);
            tester.assertRejected(() -> users.find(fresh));

            tester.preload("user", fresh);

            tester.assertPassed(() -> users.find(fresh));
            tester.assertPassed(() -> users.find(1L));
            tester.assertRejected(() -> users.find(absent(context, 1).get(0)));
        });
    }

    @Test
    void aKeySavedThroughBloomPutPassesAfterAPreload() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);
            List<Long> fresh = absent(context, 5);

            fresh.forEach(users::save);

            fresh.forEach(id -> tester.assertPassed(() -> users.find(id)));
            tester.assertRejected(() -> users.find(absent(context, 1).get(0)));
        });
    }

    @Test
    void assertRejectedTakesAReturnEmptyRejectionAsARejection() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("account", 1L);
            long absent = AbsentKeys.first(1, LongStream.iterate(2_000_000, id -> id + 1),
                    id -> tester.filter("account").check(id) == Membership.ABSENT).get(0);

            tester.assertRejected(() -> users.findAccount(absent));
            tester.assertRejected("account", () -> users.findAccount(absent));
            assertThat(users.findAccount(absent)).isEmpty();
            tester.assertPassed(() -> users.findAccount(1L));
            assertThat(users.reads()).as("only the present key reached the method").isEqualTo(1);
        });
    }

    @Test
    void rejectsTellsARejectedCallFromOneThatWentThrough() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);
            tester.preload("account", 1L);
            long absent = absent(context, 1).get(0);
            long absentAccount = AbsentKeys.first(1, LongStream.iterate(2_000_000, id -> id + 1),
                    id -> tester.filter("account").check(id) == Membership.ABSENT).get(0);

            assertThat(tester.rejects(() -> users.find(absent))).isTrue();
            assertThat(tester.rejects(() -> users.findAccount(absentAccount))).as("return-empty").isTrue();
            assertThat(tester.rejects(() -> users.find(1L))).isFalse();
            assertThat(tester.rejects(() -> users.findAccount(1L))).isFalse();
            assertThatThrownBy(() -> tester.rejects(() -> users.findOrFail(1L))).isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void assertRejectedFailsForACallThatPasses() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);

            assertThatThrownBy(() -> tester.assertRejected(() -> users.find(1L))).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("returned normally").hasMessageContaining("1 passed");
            assertThatThrownBy(() -> tester.assertRejected(() -> users.findOrFail(1L))).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("archived");
            tester.assertRejected(() -> users.find(absent(context, 1).get(0)));
        });
    }

    @Test
    void assertRejectedNamingAFilterFailsWhenAnotherRejected() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);
            long absent = absent(context, 1).get(0);

            tester.assertRejected("user", () -> users.find(absent));
            assertThatThrownBy(() -> tester.assertRejected("account", () -> users.find(absent)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("filter 'user' did");
        });
    }

    @Test
    void assertPassedFailsForARejectedCall() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);
            long absent = absent(context, 1).get(0);

            assertThatThrownBy(() -> tester.assertPassed(() -> users.find(absent))).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("filter 'user' rejected it");
            tester.assertPassed(() -> users.find(1L));
        });
    }

    /** A filter nobody loaded lets every key through, absent ones too: passing there proves nothing. */
    @Test
    void assertPassedFailsWhileTheFilterIsNotLoaded() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);

            assertThatThrownBy(() -> tester.assertPassed(() -> users.find(1L))).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("1 bypassed").hasMessageContaining("preload");
            assertThat(tester.bypassed("user")).isEqualTo(1);

            tester.preload("user", 1L);
            tester.assertPassed(() -> users.find(1L));
            tester.assertRejected(() -> users.find(absent(context, 1).get(0)));
        });
    }

    @Test
    void assertPassedFailsForACallNothingChecks() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);

            assertThatThrownBy(() -> tester.assertPassed(() -> users.describe(1L))).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("0 passed").hasMessageContaining("@BloomGuard");
        });
    }

    @Test
    void assertPassedRethrowsWhatTheMethodThrows() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);

            assertThatThrownBy(() -> tester.assertPassed(() -> users.findOrFail(1L)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("archived");
            tester.assertRejected(() -> users.findOrFail(absent(context, 1).get(0)));
        });
    }

    @Test
    void countsArePerFilterUntilReset() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            tester.preload("user", 1L);
            long absent = absent(context, 1).get(0);
            users.find(1L);
            tester.assertRejected(() -> users.find(absent));
            users.findAccount(7L);

            assertThat(List.of(tester.passed("user"), tester.blocked("user"), tester.bypassed("user"))).containsExactly(1L, 1L, 0L);
            assertThat(List.of(tester.passed("account"), tester.blocked("account"), tester.bypassed("account")))
                    .containsExactly(0L, 0L, 1L);
            assertThatThrownBy(() -> tester.passed("nope")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("nope");

            tester.resetCounts();

            assertThat(List.of(tester.passed("user"), tester.blocked("user"), tester.bypassed("account"))).containsOnly(0L);
        });
    }

    /** The tester counts in front of Micrometer's counters, which count as they did. */
    @Test
    void theApplicationsMetersCountAsBefore() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);
            GuardedUsers users = context.getBean(GuardedUsers.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            tester.preload("user", LongStream.rangeClosed(1, 100).boxed().toList());
            LongStream.rangeClosed(1, 100).forEach(id -> tester.assertPassed(() -> users.find(id)));
            absent(context, 20).forEach(id -> tester.assertRejected(() -> users.find(id)));

            assertThat(checks(meters, "passed")).isEqualTo(100.0);
            assertThat(checks(meters, "blocked")).isEqualTo(20.0);
            assertThat(List.of(tester.passed("user"), tester.blocked("user"))).containsExactly(100L, 20L);
        });
    }

    @Test
    void awaitReadyFailsAtOnceForAFilterNothingLoads() {
        runner.run(context -> {
            BloomGuardTester tester = context.getBean(BloomGuardTester.class);

            assertThatThrownBy(() -> tester.awaitReady("user")).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("'user'").hasMessageContaining("preload");

            tester.preload("user", 1L);
            tester.awaitReady("user");
        });
    }

    /** Every {@code bloomguard.checks} counter of filter {@code user} with {@code outcome}, whatever its reason. */
    private static double checks(MeterRegistry meters, String outcome) {
        return meters.get("bloomguard.checks").tags("filter", "user", "outcome", outcome).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private static List<Long> absent(AssertableApplicationContext context, int count) {
        RedisBloomFilter filter = context.getBean(BloomGuardTester.class).filter("user");
        return AbsentKeys.first(count, LongStream.iterate(2_000_000, id -> id + 1), id -> filter.check(id) == Membership.ABSENT);
    }

    @Configuration(proxyBeanMethods = false)
    static class App {

        @Bean
        GuardedUsers users() {
            return new GuardedUsers();
        }
    }
}
