package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.bloomguard.spring.BootNames;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.interceptor.BloomGuardAdvisor;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.MicrometerGuardMetrics;
import dev.bloomguard.spring.redis.SpringDataLettuceConnections;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.web.BloomGuardRejectedExceptionHandler;
import dev.bloomguard.spring.web.BloomGuardRejectedWebExceptionHandler;
import dev.bloomguard.spring.web.ReactiveBloomGuardRejectedExceptionHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class BloomGuardAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class,
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
            assertThat(registry.filter("user").keys().live()).startsWith("autoconfig:v1:{user:");
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
            assertThat(context).getBean("ownStore").isSameAs(context.getBean(BitmapStore.class));
            assertThat(context).hasSingleBean(BloomFilterRegistry.class);
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
                .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class,
                        BloomGuardWebMvcAutoConfiguration.class))
                .withPropertyValues(RealServers.redisProperties())
                .run(context -> assertThat(context).hasSingleBean(BloomGuardRejectedExceptionHandler.class));
    }

    @Test
    void rendersRejectionsInReactiveWebApplicationsToo() {
        ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class,
                        BloomGuardWebMvcAutoConfiguration.class, BloomGuardWebFluxAutoConfiguration.class))
                .withPropertyValues(RealServers.redisProperties());
        reactive.run(context -> {
            assertThat(context).hasSingleBean(BloomGuardRejectedWebExceptionHandler.class);
            assertThat(context).doesNotHaveBean(ReactiveBloomGuardRejectedExceptionHandler.class);
            assertThat(context).doesNotHaveBean(BloomGuardRejectedExceptionHandler.class);
        });
        reactive.withPropertyValues("spring.webflux.problemdetails.enabled=true").run(context -> {
            assertThat(context).hasSingleBean(ReactiveBloomGuardRejectedExceptionHandler.class);
            assertThat(context).doesNotHaveBean(BloomGuardRejectedWebExceptionHandler.class);
        });
    }

    @Test
    void rendersNoRejectionsWhenTheApplicationTurnsTheWebHandlerOff() {
        WebApplicationContextRunner servlet = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BloomGuardWebMvcAutoConfiguration.class))
                .withPropertyValues("bloom-guard.web.enabled=false");
        ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BloomGuardWebFluxAutoConfiguration.class))
                .withPropertyValues("bloom-guard.web.enabled=false");

        servlet.run(context -> assertThat(context).doesNotHaveBean(BloomGuardRejectedExceptionHandler.class));
        reactive.run(context -> assertThat(context).doesNotHaveBean(BloomGuardRejectedWebExceptionHandler.class));
        reactive.withPropertyValues("spring.webflux.problemdetails.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(ReactiveBloomGuardRejectedExceptionHandler.class));
    }

    @Test
    void rendersNoRejectionsOutsideWebApplications() {
        runner.withConfiguration(AutoConfigurations.of(BloomGuardWebFluxAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).doesNotHaveBean(BloomGuardRejectedExceptionHandler.class);
                    assertThat(context).doesNotHaveBean(BloomGuardRejectedWebExceptionHandler.class);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {

        @Bean
        BitmapStore ownStore(RedisConnectionFactory connectionFactory) {
            return LettuceBitmapStore.create(new SpringDataLettuceConnections((LettuceConnectionFactory) connectionFactory),
                    Duration.ofSeconds(3));
        }
    }
}
