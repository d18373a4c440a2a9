package dev.bloomguard.spring.autoconfigure;

import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.GenerationDescriptor;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.interceptor.BloomGuardAdvisor;
import dev.bloomguard.spring.interceptor.BloomGuardInterceptor;
import dev.bloomguard.spring.interceptor.BloomOperationSource;
import dev.bloomguard.spring.interceptor.BloomPutAdvisor;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.GuardObservations;
import dev.bloomguard.spring.warmup.CatchUpQuery;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeyColumn;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.spring.warmup.SqlKeySource;

/**
 * The starter's core: the filters from {@code bloom-guard.filters}, the advisor behind
 * {@code @BloomGuard}/{@code @BloomPut}, and the warmup from SQL or a {@link KeySource} bean. Every bean can be replaced by
 * declaring one of the same type.
 *
 * <p>Size: the filters, both advisors and the warmer, with the startup checks each needs (key
 * types read from the warmup column, the earlier key prefix); issue 15 moves the conversion of
 * properties into filter specifications out of here.
 */
@AutoConfiguration(afterName = {
        // Spring Boot 3 and Spring Boot 4 names of each: Boot ignores the one that does not exist.
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        // Registered after the transaction advisor, so that BloomPutAdvisor, of equal order, runs inside it.
        "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
        "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration" })
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnProperty(prefix = "bloom-guard", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(BloomGuardProperties.class)
@Import({ BloomGuardRedisConfiguration.class, BloomGuardAutoConfiguration.AutoProxyRegistrar.class })
public class BloomGuardAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardAutoConfiguration.class);

    /** How often an instance waiting for another's load looks again. */
    private static final java.time.Duration WAIT_POLL = java.time.Duration.ofMillis(200);

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LettuceConnections.class)
    public BitmapStore bloomGuardBitmapStore(LettuceConnections connections, BloomGuardProperties properties) {
        FilterSettingsValidator.validate(properties);
        return LettuceBitmapStore.create(connections, properties.getWriteTimeout(),
                CircuitBreaker.create(properties.getCircuitBreaker().toSettings()));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BitmapStore.class)
    public BloomFilterRegistry bloomFilterRegistry(BloomGuardProperties properties, BitmapStore store,
            ObjectProvider<FilterWarmer> warmer, ObjectProvider<DataSource> primaryDataSource, BeanFactory beanFactory,
            Environment environment) {
        FilterSettingsValidator.validate(properties);
        KeySourceBeans.resolve(properties, beanFactory);
        String keyPrefix = properties.effectiveKeyPrefix(environment.getProperty("spring.application.name"));
        Map<String, RedisBloomFilter> filters = new LinkedHashMap<>();
        String instanceId = ManagementFactory.getRuntimeMXBean().getName() + ":"
                + UUID.randomUUID().toString().substring(0, 8);
        properties.getFilters().forEach((name, settings) -> {
            FilterGeometry configured = FilterSettingsValidator.geometry(properties, name, settings);
            KeyType keyType = keyType(name, settings, primaryDataSource, beanFactory);
            if (properties.getKeyPrefix() == null && !keyPrefix.equals(BloomGuardProperties.DEFAULT_KEY_PREFIX)) {
                refuseToLeaveEarlierPrefix(store, name, configured, keyType, keyPrefix);
            }
            KeyHash hash = hash(store, keyPrefix, name, settings);
            FilterGeometry geometry = resized(store, keyPrefix, name, configured, keyType, hash,
                    properties.getMaxFilterSize().toBytes());
            RedisBloomFilter.Builder builder = RedisBloomFilter.builder(name, geometry, store)
                    .keyPrefix(keyPrefix)
                    .checkTimeout(properties.getRedisTimeout())
                    .instanceId(instanceId)
                    .maxShrink(settings.getRebuild().getMaxShrink())
                    .journalRetention(properties.getJournal().getRetention())
                    .journalCapacity(properties.getJournal().getCapacity())
                    .maxBatchSize(properties.getMaxBatchSize())
                    .rollout(properties.getRollout().getHeartbeatInterval(), properties.getRollout().getGracePeriod())
                    .onNotReady(filter -> warmer.ifAvailable(available -> available.onNotReady(filter)))
                    .keyType(keyType)
                    .hash(hash)
                    .onResizedToLoad(resized -> warmer.ifAvailable(available -> available.loadResized(resized)));
            if (!geometry.equals(configured)) {
                builder.resizedFrom(configured);
            }
            if (settings.getRebuild().isAutoResize()) {
                builder.autoResize(new FilterResize.Policy(properties.getMaxFilterSize().toBytes(),
                        Math.min(FilterGeometry.MAX_BITS, properties.getMaxShardSize().toBytes() * 8)));
            }
            if (settings.getLocalMirror().isEnabled()) {
                builder.mirror(FilterSettingsValidator.mirrorSettings(settings.getLocalMirror()));
            }
            if (settings.getNegativeCache().isEnabled()) {
                builder.rememberMisses(FilterSettingsValidator.rememberedMisses(name, settings.getNegativeCache()));
            }
            filters.put(name, builder.build());
        });
        return new BloomFilterRegistry(filters);
    }

    /**
     * The geometry the filter runs: the configured one, or the larger one auto-resize grew it
     * into (decided in Redis, by any instance, with any release of this configuration), so that a
     * restart does not come up on the geometry found too small. A configured geometry larger than
     * every resize has no decision and wins. Followed whether or not this instance resizes itself:
     * the fleet agrees. Redis unreadable at startup: the configured one, which the other instances
     * keep writing to while it runs; its heartbeats adopt the resize once Redis answers. A grown
     * geometry beyond {@code bloom-guard.max-filter-size} (lowered since the resize) fails startup,
     * as a configured one would.
     */
    private static FilterGeometry resized(BitmapStore store, String keyPrefix, String name, FilterGeometry configured,
            KeyType keyType, KeyHash hash, long maxFilterBytes) {
        String descriptor = GenerationDescriptor.of(configured, keyType, hash.id());
        String adopted;
        try {
            adopted = FilterResize.adopted(store, keyPrefix, name, descriptor);
        }
        catch (BitmapStoreException ex) {
            log.warn("Filter '{}': could not read whether auto-resize grew it ({}); starting on its configured geometry",
                    name, ex.getMessage());
            return configured;
        }
        if (adopted.equals(descriptor)) {
            return configured;
        }
        FilterGeometry geometry = GenerationDescriptor.geometry(adopted);
        if (geometry.totalByteSize() > maxFilterBytes) {
            throw new BloomGuardConfigurationException("bloom-guard.filters." + name + ": auto-resize grew it to"
                    + " expected-insertions " + geometry.expectedInsertions() + " (" + geometry.totalByteSize()
                    + " bytes, decided in Redis at " + FilterResize.key(keyPrefix, name, descriptor) + "), more than"
                    + " bloom-guard.max-filter-size (" + maxFilterBytes + " bytes); raise bloom-guard.max-filter-size");
        }
        log.info("Filter '{}': auto-resize grew it from expected-insertions {} to {} earlier (decided in Redis at {});"
                + " running the larger geometry. Raise bloom-guard.filters.{}.expected-insertions above it to size it"
                + " yourself", name, configured.expectedInsertions(), geometry.expectedInsertions(),
                FilterResize.key(keyPrefix, name, descriptor), name);
        return geometry;
    }

    /**
     * The filter's hash. A siphash secret kept in Redis is read (or created) now, before any bit
     * is read or written: the key names carry its fingerprint. Without Redis there are no names,
     * so startup fails saying how to start without Redis.
     */
    private static KeyHash hash(BitmapStore store, String keyPrefix, String name, BloomGuardProperties.Filter settings) {
        if (settings.getHash() == KeyHash.Algorithm.MURMUR3) {
            return KeyHash.murmur3();
        }
        if (settings.getHashSecret() != null && !settings.getHashSecret().isEmpty()) {
            return HashSecrets.configured(store, keyPrefix, name, settings.getHashSecret());
        }
        try {
            return HashSecrets.stored(store, keyPrefix, name);
        }
        catch (BitmapStoreException ex) {
            throw new BloomGuardConfigurationException("bloom-guard.filters." + name + ".hash=siphash keeps its secret"
                    + " in Redis at " + HashSecrets.key(keyPrefix, name) + ", which could not be read (" + ex.getMessage()
                    + "); the filter's key names depend on it. Start once Redis answers, or set bloom-guard.filters."
                    + name + ".hash-secret", ex);
        }
    }

    /**
     * Before 0.2 every application's prefix was {@code bg}. An application that has a name and
     * sets no prefix would now start on new keys while the instances (or the other applications)
     * still running the old release add to the old ones: each side would block the keys the other
     * creates. So when Redis still holds this filter under {@code bg}, startup stops and asks for
     * a choice. A Redis that cannot be asked (down at startup) is not taken as an answer either
     * way: the filter starts on the new prefix, unloaded and so blocking nothing until it is loaded.
     */
    private static void refuseToLeaveEarlierPrefix(BitmapStore store, String name, FilterGeometry geometry,
            KeyType keyType, String keyPrefix) {
        FilterKeys earlier = FilterKeys.of(BloomGuardProperties.DEFAULT_KEY_PREFIX, name, geometry, keyType);
        boolean present;
        try {
            present = store.length(earlier.live()) > 0 || !store.hashGetAll(earlier.meta()).isEmpty();
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not ask Redis whether it holds the filter under the prefix '{}' of earlier"
                    + " releases ({}); using '{}'", name, BloomGuardProperties.DEFAULT_KEY_PREFIX, ex.getMessage(),
                    keyPrefix);
            return;
        }
        if (present) {
            throw new BloomGuardConfigurationException("bloom-guard.key-prefix is not set, so filter '" + name
                    + "' would use the default '" + keyPrefix + "' (bg and spring.application.name), but Redis holds it"
                    + " under '" + BloomGuardProperties.DEFAULT_KEY_PREFIX + "', the prefix of every application before"
                    + " 0.2. Instances or applications still using it would add keys this one never sees. Set"
                    + " bloom-guard.key-prefix=" + BloomGuardProperties.DEFAULT_KEY_PREFIX + " to keep the filter, or"
                    + " bloom-guard.key-prefix=" + keyPrefix + " once everything that shares it moves together");
        }
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BloomFilterRegistry.class)
    public FilterWarmer bloomGuardFilterWarmer(BloomGuardProperties properties, BloomFilterRegistry registry,
            ObjectProvider<DataSource> primaryDataSource, BeanFactory beanFactory, ObjectProvider<GuardMetrics> metrics) {
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
        return new FilterWarmer(tasks, properties.getLockTtl(), WAIT_POLL, properties.getRewindCheckInterval(),
                () -> metrics.getIfAvailable(() -> GuardMetrics.NONE));
    }

    /**
     * The filter's key type: the one its warmup query's key column implies, read at startup
     * without running the query, or the declared one where it does not contradict the column.
     * Without warmup SQL, the declared one (none: keys hash by their Java type, as before key
     * types existed).
     */
    private static KeyType keyType(String name, BloomGuardProperties.Filter settings,
            ObjectProvider<DataSource> primaryDataSource, BeanFactory beanFactory) {
        BloomGuardProperties.Warmup warmup = settings.getWarmup();
        if (warmup.getSql() == null || warmup.getSql().isBlank()) {
            return settings.getKeyType();
        }
        String prefix = "bloom-guard.filters." + name;
        DataSource dataSource = dataSource(name, warmup.getDatasource(), primaryDataSource, beanFactory);
        KeyColumn column;
        try {
            column = new SqlKeySource(dataSource, warmup.getSql(), warmup.getFetchSize(), warmup.getKeyColumn())
                    .describe(name);
        }
        catch (SQLException ex) {
            boolean unreachable = ex instanceof SQLTransientConnectionException
                    || ex instanceof SQLNonTransientConnectionException
                    || ex.getSQLState() != null && ex.getSQLState().startsWith("08");
            if (unreachable && settings.getKeyType() != null) {
                log.warn("Filter '{}': the database did not describe the warmup query ({}); comparing keys as the"
                        + " declared {} {}, checked against the key column when the query runs", name, ex.getMessage(),
                        prefix + ".key-type", settings.getKeyType().id());
                return settings.getKeyType();
            }
            throw new BloomGuardConfigurationException(prefix + ".warmup.sql: the database could not describe it ("
                    + ex.getMessage() + ")" + (unreachable ? "; the database must be reachable at startup to read the"
                            + " key column's type, or declare " + prefix + ".key-type" : ""), ex);
        }
        if (column == null) {
            if (settings.getKeyType() == null) {
                throw new BloomGuardConfigurationException(prefix + ".warmup.sql: the JDBC driver does not describe"
                        + " a query before running it, so the key column's type is unknown; declare " + prefix
                        + ".key-type");
            }
            return settings.getKeyType();
        }
        return column.keyType(settings.getKeyType(), name);
    }

    /** The filter's catch-up query, or null; checked by {@link FilterSettingsValidator}. */
    private static CatchUpQuery catchUp(BloomGuardProperties.Warmup warmup, DataSource dataSource) {
        if (warmup.getCatchUpSql() == null || warmup.getCatchUpSql().isBlank()) {
            return null;
        }
        return CatchUpQuery.of(dataSource, warmup.getCatchUpSql(), warmup.getCatchUpOverlap(),
                warmup.getCatchUpInterval(), warmup.getKeyColumn());
    }

    private static DataSource dataSource(String filter, String beanName, ObjectProvider<DataSource> primary,
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

    /**
     * Static and bound straight from the environment: advisors are created while bean post
     * processors are still being registered, and must not drag Redis or metrics beans in early.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    public static BloomGuardAdvisor bloomGuardAdvisor(Environment environment,
            ObjectProvider<BloomFilterRegistry> registry, ObjectProvider<GuardMetrics> metrics,
            ObjectProvider<GuardObservations> observations, ObjectProvider<FilterWarmer> warmer) {
        BloomGuardProperties properties = Binder.get(environment)
                .bindOrCreate("bloom-guard", BloomGuardProperties.class);
        BloomOperationSource source = new BloomOperationSource(new PropertiesCatalog(properties));
        BloomGuardInterceptor interceptor = new BloomGuardInterceptor(source, registry::getObject,
                () -> metrics.getIfAvailable(() -> GuardMetrics.NONE),
                () -> observations.getIfAvailable(() -> GuardObservations.NONE),
                properties.getOnRedisFailure() == BloomGuardProperties.OnRedisFailure.BLOCK,
                filter -> warmer.getObject().rebuild(filter.name()));
        return new BloomGuardAdvisor(source, interceptor, properties.getOrder());
    }

    /** The add of {@code @BloomPut}, ordered inside transactions; shares the guard advisor's interceptor. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    public static BloomPutAdvisor bloomPutAdvisor(BloomGuardAdvisor guardAdvisor) {
        return new BloomPutAdvisor(guardAdvisor);
    }

    /** Filter names and policies as the annotations see them at proxy-creation time. */
    private record PropertiesCatalog(BloomGuardProperties properties) implements BloomOperationSource.FilterCatalog {

        @Override
        public Optional<Boolean> returnsEmpty(String filter) {
            return Optional.ofNullable(properties.getFilters().get(filter))
                    .map(settings -> settings.getOnAbsent() == BloomGuardProperties.OnAbsent.RETURN_EMPTY);
        }

        @Override
        public boolean singleFlight(String filter) {
            BloomGuardProperties.Filter settings = properties.getFilters().get(filter);
            return settings != null && settings.isSingleFlight();
        }

        @Override
        public List<Class<? extends Throwable>> missExceptions(String filter) {
            BloomGuardProperties.Filter settings = properties.getFilters().get(filter);
            return settings == null || !settings.getNegativeCache().isEnabled() ? null
                    : FilterSettingsValidator.missExceptions(filter, settings.getNegativeCache());
        }

        @Override
        public Iterable<String> names() {
            return properties.getFilters().keySet();
        }
    }

    /** Makes sure an auto-proxy creator exists even with {@code spring.aop.auto=false}, as {@code @EnableCaching} does. */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
