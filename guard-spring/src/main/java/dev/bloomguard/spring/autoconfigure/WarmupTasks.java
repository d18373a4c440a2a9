package dev.bloomguard.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.warmup.CatchUpQuery;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.spring.warmup.SqlKeySource;

/**
 * The {@link FilterWarmer}'s tasks, one per filter of {@code bloom-guard.filters}: its key source
 * (a {@code KeySource} bean, or the warmup SQL with its catch-up query), and the startup checks
 * and warnings about how the filter learns of new keys. It also resolves a filter's warmup
 * {@link DataSource}; it logs as {@link BloomGuardAutoConfiguration}, which operators configure.
 */
final class WarmupTasks {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardAutoConfiguration.class);

    private WarmupTasks() {
    }

    /** One per filter, in the order of {@code bloom-guard.filters}. */
    static List<FilterWarmer.Task> of(BloomGuardProperties properties, BloomFilterRegistry registry,
            ObjectProvider<DataSource> primaryDataSource, BeanFactory beanFactory) {
        List<FilterWarmer.Task> tasks = new ArrayList<>();
        Map<String, String> sourceBeans = KeySourceBeans.resolve(properties, beanFactory);
        properties.getFilters().forEach((name, settings) -> {
            BloomGuardProperties.Warmup warmup = settings.getWarmup();
            KeySource source = null;
            if (sourceBeans.containsKey(name)) {
                if (settings.getKeyType() == null) {
                    // Without a key column to read it from, keys would hash by their Java type: an upper-case
                    // UUID or "042" given as text would miss the key the source streamed, and be blocked.
                    throw new BloomGuardConfigurationException("bloom-guard.filters." + name + " is filled by the"
                            + " KeySource bean '" + sourceBeans.get(name) + "' and declares no key-type, so a key"
                            + " written another way than the source streams it (\"042\", an upper-case UUID) would be"
                            + " blocked; declare bloom-guard.filters." + name + ".key-type as the database compares the"
                            + " key: integer, uuid, text, text-case-insensitive, char or bytes");
                }
                source = beanFactory.getBean(sourceBeans.get(name), KeySource.class);
                if (source.catchUp().isEmpty() && settings.getRebuild().getInterval().isZero()) {
                    log.warn("Filter '{}' learns of new keys only through @BloomPut: keys written outside this"
                            + " application are blocked until a load that never comes. Give its KeySource a"
                            + " catchUp(), or set bloom-guard.filters.{}.rebuild.interval", name, name);
                }
            }
            else if (warmup.getSql() != null && !warmup.getSql().isBlank()) {
                DataSource dataSource = dataSource(name, warmup.getDatasource(), primaryDataSource, beanFactory);
                CatchUpQuery catchUp = catchUp(warmup, dataSource);
                SqlKeySource sql = new SqlKeySource(dataSource, warmup.getSql(), warmup.getFetchSize(),
                        warmup.getKeyColumn());
                source = catchUp == null ? sql : sql.withCatchUp(catchUp);
                if (catchUp == null && settings.getRebuild().getInterval().isZero()) {
                    log.warn("Filter '{}' learns of new rows only through @BloomPut: rows written outside this"
                            + " application (another service, a batch job, plain SQL) are blocked until a load that never"
                            + " comes. Add every writer's @BloomPut, or set bloom-guard.filters.{}.warmup.catch-up-sql"
                            + " (e.g. SELECT id FROM users WHERE created_at > :since) or"
                            + " bloom-guard.filters.{}.rebuild.interval", name, name, name);
                }
            }
            if (settings.getRebuild().isAutoResize() && source == null) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + name + ".rebuild.auto-resize is on"
                        + " but the filter has no key source to rebuild it from under the larger geometry (a grown"
                        + " filter that nothing loads would never answer, and one loaded from nothing would block"
                        + " every key); set bloom-guard.filters." + name + ".warmup.sql or a @BloomKeySource(\"" + name
                        + "\") bean, or turn auto-resize off");
            }
            tasks.add(new FilterWarmer.Task(registry.filter(name), source, warmup.isOnStartup(), warmup.isBlocking(),
                    settings.getRebuild().getInterval()));
        });
        return tasks;
    }

    /** The filter's catch-up query, or null; checked by {@link FilterSettingsValidator}. */
    private static CatchUpQuery catchUp(BloomGuardProperties.Warmup warmup, DataSource dataSource) {
        if (warmup.getCatchUpSql() == null || warmup.getCatchUpSql().isBlank()) {
            return null;
        }
        return CatchUpQuery.of(dataSource, warmup.getCatchUpSql(), warmup.getCatchUpOverlap(),
                warmup.getCatchUpInterval(), warmup.getKeyColumn());
    }

    /** The filter's warmup DataSource: the bean {@code beanName} names, else the single primary one. */
    static DataSource dataSource(String filter, String beanName, ObjectProvider<DataSource> primary,
            BeanFactory beanFactory) {
        String property = "bloom-guard.filters." + filter + ".warmup";
        if (beanName != null && !beanName.isBlank()) {
            try {
                return beanFactory.getBean(beanName, DataSource.class);
            }
            catch (NoSuchBeanDefinitionException ex) {
                throw new BloomGuardConfigurationException(property + ".datasource names '" + beanName
                        + "', but there is no DataSource bean of that name");
            }
        }
        DataSource dataSource = primary.getIfUnique();
        if (dataSource == null) {
            throw new BloomGuardConfigurationException(property + ".sql is set but there is no single primary"
                    + " DataSource; configure one or name a bean in " + property + ".datasource");
        }
        return dataSource;
    }
}
