package dev.bloomguard.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import dev.bloomguard.spring.metrics.CircuitStateGauge;
import dev.bloomguard.spring.metrics.CircuitTransitionCounter;
import dev.bloomguard.spring.metrics.FilterStatusGauges;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.MicrometerGuardMetrics;
import dev.bloomguard.spring.metrics.MirrorMetrics;
import dev.bloomguard.spring.metrics.RebuildIntervalGauges;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Publishes {@code bloomguard.checks}, {@code bloomguard.check.duration}, the adds and loads, the
 * circuit state and its transitions, and the per-filter gauges read every
 * {@code bloom-guard.status-refresh-interval}, to the application's MeterRegistry. Every meter is registered here, once, before the first call.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class, afterName = {
        // Spring Boot 3 and Spring Boot 4 names of each: Boot ignores the one that does not exist.
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, BloomFilterRegistry.class })
@Import(FilterStatusCacheConfiguration.class)
public class BloomGuardMetricsAutoConfiguration {

    /**
     * Denies the meters Boot's default observation handler would make of the {@code bloomguard.check}
     * observation (a timer of that name and its {@code .active} long task timer): they would time
     * the same check again as {@code bloomguard.check.duration}, which carries the same
     * {@code filter} and {@code outcome} tags. The observation itself, for tracing, is untouched.
     * Static, as the registry's post-processor asks for meter filters while it creates the registry.
     */
    @Bean
    @ConditionalOnMissingBean(name = "bloomGuardObservationMeterFilter")
    public static MeterFilter bloomGuardObservationMeterFilter() {
        String observation = BloomGuardMetricNames.CHECK_OBSERVATION;
        return MeterFilter.deny(id -> id.getName().equals(observation) || id.getName().equals(observation + ".active"));
    }

    @Bean
    @ConditionalOnMissingBean
    public GuardMetrics bloomGuardMetrics(MeterRegistry meterRegistry, BloomFilterRegistry filters) {
        return new MicrometerGuardMetrics(meterRegistry, filters.names());
    }

    @Bean
    @ConditionalOnMissingBean
    public MirrorMetrics bloomGuardMirrorMetrics(MeterRegistry meterRegistry, BloomFilterRegistry filters) {
        return new MirrorMetrics(meterRegistry, filters);
    }

    @Bean
    @ConditionalOnMissingBean
    public FilterStatusGauges bloomGuardFilterStatusGauges(MeterRegistry meterRegistry, FilterStatusCache statuses) {
        return new FilterStatusGauges(meterRegistry, statuses);
    }

    @Bean
    @ConditionalOnMissingBean
    public RebuildIntervalGauges bloomGuardRebuildIntervalGauges(MeterRegistry meterRegistry,
            ObjectProvider<BloomGuardProperties> properties) {
        Map<String, Duration> intervals = new LinkedHashMap<>();
        properties.ifAvailable(configured -> configured.getFilters().forEach((filter, settings) -> intervals.put(filter,
                settings.getRebuild().getInterval() == null ? Duration.ZERO : settings.getRebuild().getInterval())));
        return new RebuildIntervalGauges(meterRegistry, intervals);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(BitmapStore.class)
    public CircuitStateGauge bloomGuardCircuitStateGauge(MeterRegistry meterRegistry, BitmapStore store) {
        return new CircuitStateGauge(meterRegistry, store);
    }

    /** Hears the store once, not each filter: see {@link CircuitTransitionCounter}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(BitmapStore.class)
    public CircuitTransitionCounter bloomGuardCircuitTransitionCounter(MeterRegistry meterRegistry, BitmapStore store) {
        return new CircuitTransitionCounter(meterRegistry, store);
    }
}
