package dev.bloomguard.demo;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;
import dev.bloomguard.spring.autoconfigure.BloomGuardProperties;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.SqlKeySource;

/**
 * Warms the filters from {@code bloom-guard.filters.*.warmup} on the primary DataSource, only
 * when the starter has not declared a {@link FilterWarmer} itself.
 *
 * <p>guard-spring as first committed (9ef17e6) declared its warmer in a nested configuration
 * guarded by {@code @ConditionalOnBean(BloomFilterRegistry.class)}; Spring evaluates a nested
 * class before the {@code @Bean} methods of its enclosing class, so the condition never matched,
 * no filter was warmed and every check was {@code bypassed}. Later starters declare the warmer
 * directly, and then this configuration backs off.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnBean({ BloomFilterRegistry.class, DataSource.class })
public class FilterWarmupAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FilterWarmer bloomGuardFilterWarmer(BloomGuardProperties properties, BloomFilterRegistry registry,
            DataSource dataSource) {
        List<FilterWarmer.Task> tasks = new ArrayList<>();
        properties.getFilters().forEach((name, settings) -> {
            BloomGuardProperties.Warmup warmup = settings.getWarmup();
            if (warmup.runsOnStartup()) {
                tasks.add(new FilterWarmer.Task(registry.filter(name),
                        new SqlKeySource(dataSource, warmup.getSql(), warmup.getFetchSize()), warmup.isBlocking()));
            }
        });
        return new FilterWarmer(tasks);
    }
}
