package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.bloomguard.spring.BootNames;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.bloomguard.core.FilterState;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.actuate.BloomGuardEndpoint;
import dev.bloomguard.spring.actuate.FilterStatusCache;

class BloomGuardEndpointAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class,
                    BloomGuardEndpointAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=endpoint-autoconfig", "bloom-guard.redis-timeout=5s",
                    "bloom-guard.filters.user.expected-insertions=1000",
                    "bloom-guard.filters.never.expected-insertions=1000");

    @Test
    void createsTheEndpointWhenItIsExposed() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=bloomguard").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(BloomGuardEndpoint.class);
            assertThat(context).hasSingleBean(FilterStatusCache.class);
            BloomGuardEndpoint endpoint = context.getBean(BloomGuardEndpoint.class);
            context.getBean(BloomFilterRegistry.class).filter("user")
                    .load(LongStream.rangeClosed(1, 500).boxed());
            // The cache reads a filter within a second of its load; the endpoint shows that read.
            context.getBean(FilterStatusCache.class).refresh("user");
            BloomGuardEndpoint.FilterDescriptor user = endpoint.filter("user");
            assertThat(user.state()).isEqualTo(FilterState.READY);
            assertThat(user.liveKeys()).isEqualTo(500);
            assertThat(user.lastLoad().keys()).isEqualTo(500);
            assertThat(endpoint.filter("nope")).isNull();
            assertThat(endpoint.filters().filters()).containsOnlyKeys("user", "never");
            assertThat(endpoint.filters().filters().get("never").state()).isEqualTo(FilterState.DEGRADED);
            assertThatThrownBy(() -> endpoint.rebuild("never")).isInstanceOf(InvalidEndpointRequestException.class)
                    .hasMessageContaining("bloom-guard.filters.never.warmup.sql");
            assertThatThrownBy(() -> endpoint.rebuild("nope")).isInstanceOf(InvalidEndpointRequestException.class)
                    .hasMessageContaining("No filter named 'nope'");
        });
    }

    @Test
    void createsNoEndpointAndReadsNoStatusWhenItIsNotExposed() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(BloomGuardEndpoint.class);
            assertThat(context).doesNotHaveBean(FilterStatusCache.class);
        });
    }

    @Test
    void createsNoEndpointWithoutActuator() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=bloomguard")
                .withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(BloomGuardEndpoint.class);
                });
    }

    @Test
    void createsNoEndpointWhenBloomGuardIsDisabled() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=bloomguard", "bloom-guard.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(BloomGuardEndpoint.class);
                    assertThat(context).doesNotHaveBean(FilterStatusCache.class);
                });
    }

    @Test
    void backsOffFromAUserEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=bloomguard")
                .withUserConfiguration(OwnEndpoint.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(BloomGuardEndpoint.class);
                    assertThat(context).getBean("ownEndpoint").isSameAs(context.getBean(BloomGuardEndpoint.class));
                });
    }

    @Test
    void statusCacheStartsWithTheContextAndStopsWithIt() {
        FilterStatusCache[] cache = new FilterStatusCache[1];
        runner.withPropertyValues("management.endpoints.web.exposure.include=bloomguard").run(context -> {
            cache[0] = context.getBean(FilterStatusCache.class);
            assertThat(cache[0].isRunning()).isTrue();
            assertThat(cache[0].snapshots()).as("read once at start").containsOnlyKeys("user", "never");
        });
        assertThat(cache[0].isRunning()).isFalse();
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEndpoint {

        @Bean
        BloomGuardEndpoint ownEndpoint(FilterStatusCache statuses) {
            return new BloomGuardEndpoint(statuses, null, Duration.ofMinutes(1));
        }
    }
}
