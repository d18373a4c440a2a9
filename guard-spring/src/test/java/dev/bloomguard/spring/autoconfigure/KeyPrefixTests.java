package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;

/**
 * Two applications on one Redis, each with a filter of the same name: the default key prefix
 * carries {@code spring.application.name}, so neither reads nor overwrites the other's filter.
 */
class KeyPrefixTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.filters.tenant.expected-insertions=1000", "bloom-guard.redis-timeout=5s");

    @Test
    void defaultPrefixIsBgAndTheApplicationName() {
        runner.withPropertyValues("spring.application.name=Orders Service").run(context -> assertThat(
                context.getBean(BloomFilterRegistry.class).filter("tenant").keys().live()).startsWith("bg:Orders-Service:v1:{tenant:"));
        runner.run(context -> assertThat(context.getBean(BloomFilterRegistry.class).filter("tenant").keys().live())
                .startsWith("bg:v1:{tenant:"));
        runner.withPropertyValues("spring.application.name=orders", "bloom-guard.key-prefix=bg").run(context -> assertThat(
                context.getBean(BloomFilterRegistry.class).filter("tenant").keys().live()).startsWith("bg:v1:{tenant:"));
    }

    @Test
    void anApplicationThatGainsANameWhileRedisHoldsItsFilterUnderTheUnnamedPrefixStopsAtStartup() {
        List<Long> keys = LongStream.rangeClosed(1, 500).boxed().toList();
        // The application before it had a name: its prefix was bg (set here as it would default).
        runner.withPropertyValues("bloom-guard.key-prefix=bg", "bloom-guard.filters.legacy.expected-insertions=1000")
                .run(unnamed -> unnamed.getBean(BloomFilterRegistry.class).filter("legacy").load(keys.stream()));

        runner.withPropertyValues("spring.application.name=upgraded", "bloom-guard.filters.legacy.expected-insertions=1000")
                .run(StartupFailures.failsWith("filter 'legacy'", "bloom-guard.key-prefix=bg",
                        "bloom-guard.key-prefix=bg:upgraded"));

        runner.withPropertyValues("spring.application.name=upgraded", "bloom-guard.key-prefix=bg",
                "bloom-guard.filters.legacy.expected-insertions=1000").run(pinned -> {
                    RedisBloomFilter legacy = pinned.getBean(BloomFilterRegistry.class).filter("legacy");
                    assertThat(legacy.checkAll(keys)).containsOnly(Membership.PRESENT);
                    assertThat(legacy.checkAll(LongStream.rangeClosed(1_001, 2_000).boxed().toList()))
                            .filteredOn(Membership.ABSENT::equals).hasSizeGreaterThan(950);
                });
    }

    @Test
    void twoApplicationsWithTheSameFilterNameDoNotShareIt() {
        List<Long> ordersKeys = LongStream.rangeClosed(1, 500).boxed().toList();
        runner.withPropertyValues("spring.application.name=prefix-orders").run(orders -> {
            RedisBloomFilter ordersUsers = orders.getBean(BloomFilterRegistry.class).filter("tenant");
            ordersUsers.load(ordersKeys.stream());
            runner.withPropertyValues("spring.application.name=prefix-billing").run(billing -> {
                RedisBloomFilter billingUsers = billing.getBean(BloomFilterRegistry.class).filter("tenant");
                billingUsers.load(LongStream.rangeClosed(1_001, 1_500).boxed());
                // Each application's own keys pass, and the other's keys are its own business.
                assertThat(ordersUsers.checkAll(ordersKeys)).containsOnly(Membership.PRESENT);
                assertThat(billingUsers.checkAll(LongStream.rangeClosed(1_001, 1_500).boxed().toList()))
                        .containsOnly(Membership.PRESENT);
                long billingBlocksOrders = billingUsers.checkAll(ordersKeys).stream()
                        .filter(Membership.ABSENT::equals).count();
                long ordersBlocksBilling = ordersUsers.checkAll(LongStream.rangeClosed(1_001, 1_500).boxed().toList())
                        .stream().filter(Membership.ABSENT::equals).count();
                assertThat(billingBlocksOrders).as("billing's filter never saw orders' keys").isGreaterThan(450);
                assertThat(ordersBlocksBilling).as("orders' load was not overwritten by billing's").isGreaterThan(450);
            });
        });
    }
}
