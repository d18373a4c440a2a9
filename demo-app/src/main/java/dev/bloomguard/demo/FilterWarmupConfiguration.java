package dev.bloomguard.demo;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.autoconfigure.BloomGuardProperties;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.SqlKeySource;

/**
 * Declares the SQL warmup of the filters from {@code bloom-guard.filters.*.warmup}, reading the
 * primary DataSource.
 *
 * <p>The starter (0.1.0-SNAPSHOT) declares its warmer in a nested configuration guarded by
 * {@code @ConditionalOnBean(BloomFilterRegistry.class)}; Spring evaluates a nested class before
 * the {@code @Bean} methods of its enclosing class, so that condition never matches and the
 * filters are never warmed (every check is {@code bypassed}). The starter's warmer is
 * {@code @ConditionalOnMissingBean}, so once it is registered this bean simply replaces it.
 */
@Configuration(proxyBeanMethods = false)
class FilterWarmupConfiguration {

    @Bean
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
