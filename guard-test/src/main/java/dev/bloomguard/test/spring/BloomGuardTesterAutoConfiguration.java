package dev.bloomguard.test.spring;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.warmup.FilterWarmer;

/**
 * The {@link BloomGuardTester} of {@link AutoConfigureBloomGuardInMemory} and
 * {@link AutoConfigureBloomGuard}, and the counts it reads: the application's {@link GuardMetrics}
 * (Micrometer's) is wrapped in {@link CheckCounts}, or, where it has none, one that only counts is
 * declared. After the starter's metrics, so that the wrapped one is the one the starter made.
 */
@AutoConfiguration(afterName = { "dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration",
        "dev.bloomguard.spring.autoconfigure.BloomGuardMetricsAutoConfiguration" })
@ConditionalOnClass(name = "dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration")
@ConditionalOnBean(BloomFilterRegistry.class)
public class BloomGuardTesterAutoConfiguration {

    /** Static: a post-processor, registered before the beans it wraps are created. */
    @Bean
    static BeanPostProcessor bloomGuardCheckCountsPostProcessor() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                return bean instanceof GuardMetrics metrics && !(bean instanceof CheckCounts) ? new CheckCounts(metrics) : bean;
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean(GuardMetrics.class)
    GuardMetrics bloomGuardCheckCounts() {
        return new CheckCounts(GuardMetrics.NONE);
    }

    @Bean
    @ConditionalOnMissingBean
    public BloomGuardTester bloomGuardTester(BloomFilterRegistry registry, ObjectProvider<FilterWarmer> warmer,
            ObjectProvider<GuardMetrics> metrics) {
        return new BloomGuardTester(registry, warmer::getIfAvailable, () -> (CheckCounts) metrics.getObject());
    }
}
