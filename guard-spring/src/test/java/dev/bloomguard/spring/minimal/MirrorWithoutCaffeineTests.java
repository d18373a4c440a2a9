package dev.bloomguard.spring.minimal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;
import dev.bloomguard.spring.autoconfigure.StartupFailures;

/**
 * Caffeine is an optional dependency, there for the local mirror and the negative cache: asking
 * for either without it on the class path stops startup, naming the property and the artifact to
 * add, rather than failing later with a NoClassDefFoundError.
 */
class MirrorWithoutCaffeineTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=minimal-mirror", "bloom-guard.filters.user.expected-insertions=1000");

    @Test
    void enabledMirrorWithoutCaffeineFailsStartupNamingTheDependencyAndTheProperty() {
        runner.withPropertyValues("bloom-guard.filters.user.local-mirror.enabled=true")
                .run(StartupFailures.failsWith("bloom-guard.filters.user.local-mirror.enabled",
                        "com.github.ben-manes.caffeine:caffeine"));
    }

    @Test
    void enabledNegativeCacheWithoutCaffeineFailsStartupNamingTheDependencyAndTheProperty() {
        runner.withPropertyValues("bloom-guard.filters.user.negative-cache.enabled=true")
                .run(StartupFailures.failsWith("bloom-guard.filters.user.negative-cache.enabled=true needs Caffeine",
                        "com.github.ben-manes.caffeine:caffeine", "negative-cache.enabled=false"));
    }

    @Test
    void filtersWithoutMirrorStartWithoutCaffeine() {
        runner.withPropertyValues("bloom-guard.filters.other.expected-insertions=1000",
                "bloom-guard.filters.other.local-mirror.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(BloomFilterRegistry.class));
    }
}
