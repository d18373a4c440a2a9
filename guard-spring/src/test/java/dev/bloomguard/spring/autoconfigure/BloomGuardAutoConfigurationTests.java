package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.BitSet;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.interceptor.BloomGuardAdvisor;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.MicrometerGuardMetrics;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.web.BloomGuardRejectedExceptionHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class BloomGuardAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class, BloomGuardAutoConfiguration.class,
                    BloomGuardMetricsAutoConfiguration.class, BloomGuardWebMvcAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=autoconfig", "bloom-guard.filters.user.expected-insertions=1000");

    @Test
    void createsFiltersAdvisorAndWarmerFromProperties() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(BitmapStore.class);
            assertThat(context).hasSingleBean(BloomFilterRegistry.class);
            assertThat(context).hasSingleBean(BloomGuardAdvisor.class);
            assertThat(context).hasSingleBean(FilterWarmer.class);
            assertThat(context).doesNotHaveBean(GuardMetrics.class);
            assertThat(context).doesNotHaveBean(BloomGuardRejectedExceptionHandler.class);
            BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
            assertThat(registry.names()).containsExactly("user");
            assertThat(registry.filter("user").keys().live()).startsWith("autoconfig:{user:");
            assertThat(registry.filter("user").geometry().expectedInsertions()).isEqualTo(1000);
        });
    }

    @Test
    void createsNothingWhenDisabled() {
        runner.withPropertyValues("bloom-guard.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(BloomFilterRegistry.class);
            assertThat(context).doesNotHaveBean(BloomGuardAdvisor.class);
            assertThat(context).doesNotHaveBean(FilterWarmer.class);
        });
    }

    @Test
    void backsOffFromAUserBitmapStore() {
        runner.withUserConfiguration(OwnStore.class).run(context -> {
            assertThat(context).hasSingleBean(BitmapStore.class);
            assertThat(context.getBean(BitmapStore.class)).isSameAs(context.getBean(OwnStore.class).store);
            assertThat(context.getBean(BloomFilterRegistry.class).filter("user").check(1L).name())
                    .isEqualTo("NOT_READY");
        });
    }

    @Test
    void publishesMetricsWhenThereIsAMeterRegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(GuardMetrics.class);
            assertThat(context.getBean(GuardMetrics.class)).isInstanceOf(MicrometerGuardMetrics.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("bloomguard.checks").tag("filter", "user").tag("outcome", "blocked").counter())
                    .isNotNull();
            assertThat(registry.find("bloomguard.check.duration").tag("filter", "user").timer()).isNotNull();
        });
    }

    @Test
    void rendersRejectionsOnlyInServletWebApplications() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class, BloomGuardAutoConfiguration.class,
                        BloomGuardWebMvcAutoConfiguration.class))
                .withPropertyValues(RealServers.redisProperties())
                .run(context -> assertThat(context).hasSingleBean(BloomGuardRejectedExceptionHandler.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {

        final BitmapStore store = new BitmapStore() {
            @Override
            public BitSet readBits(String key, long[] offsets, int count, Duration timeout) {
                return new BitSet();
            }

            @Override
            public void setBits(String key, long[] offsets, int count) {
            }

            @Override
            public void writeBitmap(String key, byte[] bitmap, Duration expiry) {
            }

            @Override
            public void persist(String key) {
            }

            @Override
            public void rename(String source, String target) {
            }

            @Override
            public void delete(String key) {
            }

            @Override
            public long length(String key) {
                return 0;
            }
        };

        @Bean
        BitmapStore ownStore() {
            return store;
        }
    }
}
