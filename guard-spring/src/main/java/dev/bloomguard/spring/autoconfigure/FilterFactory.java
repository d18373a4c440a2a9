package dev.bloomguard.spring.autoconfigure;

import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.UUID;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.filter.FilterEvent;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.rollout.GenerationDescriptor;
import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeyColumn;
import dev.bloomguard.spring.warmup.SqlKeySource;

/**
 * Builds one filter of the {@link dev.bloomguard.spring.BloomFilterRegistry} from its
 * {@code bloom-guard.filters.<name>} settings: the geometry (configured, or grown by auto-resize),
 * the key type, the hash, and the builder's options (rollout, auto-resize, mirror, misses). It owns
 * the startup checks a filter needs of Redis or the database; it logs as
 * {@link BloomGuardAutoConfiguration}, which operators configure.
 */
final class FilterFactory {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardAutoConfiguration.class);

    private final BloomGuardProperties properties;
    private final BitmapStore store;
    /** Looked up at the first event, not here: both beans need the registry these filters are built for. */
    private final SingletonSupplier<FilterWarmer> warmer;
    private final SingletonSupplier<FilterStatusCache> statuses;
    private final ObjectProvider<DataSource> primaryDataSource;
    private final BeanFactory beanFactory;
    private final String keyPrefix;
    private final String instanceId;

    /** {@code keyPrefix}: the effective one; the instance id, shared by this instance's filters, is drawn here. */
    FilterFactory(BloomGuardProperties properties, BitmapStore store, ObjectProvider<FilterWarmer> warmer,
            ObjectProvider<FilterStatusCache> statuses, ObjectProvider<DataSource> primaryDataSource,
            BeanFactory beanFactory, String keyPrefix) {
        this.properties = properties;
        this.store = store;
        this.warmer = SingletonSupplier.of(warmer::getIfAvailable);
        this.statuses = SingletonSupplier.of(statuses::getIfAvailable);
        this.primaryDataSource = primaryDataSource;
        this.beanFactory = beanFactory;
        this.keyPrefix = keyPrefix;
        this.instanceId = ManagementFactory.getRuntimeMXBean().getName() + ":"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The filter of {@code spec}, as {@link FilterSettingsValidator#validate} converted its settings. */
    RedisBloomFilter filter(FilterSpecs.Spec spec) {
        String name = spec.name();
        BloomGuardProperties.Filter settings = spec.settings();
        FilterGeometry configured = spec.geometry();
        KeyType keyType = keyType(name, settings, primaryDataSource, beanFactory);
        if (properties.getKeyPrefix() == null && !keyPrefix.equals(BloomGuardProperties.DEFAULT_KEY_PREFIX)) {
            refuseToLeaveUnnamedPrefix(store, name, configured, keyType, keyPrefix);
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
                // A crashed loader's hold on the journals goes when its load lock does.
                .loadHold(properties.getLockTtl())
                .maxBatchSize(properties.getMaxBatchSize())
                .rollout(properties.getRollout().getHeartbeatInterval(), properties.getRollout().getGracePeriod())
                // The circuit's transitions are heard once per store (CircuitTransitionLog), not per filter.
                .listener(event -> {
                    if (!(event instanceof FilterEvent.CircuitChanged)) {
                        FilterWarmer loads = warmer.get();
                        if (loads != null) {
                            loads.onEvent(event);
                        }
                        FilterStatusCache status = statuses.get();
                        if (status != null) {
                            status.onEvent(event);
                        }
                    }
                })
                .keyType(keyType)
                .hash(hash)
                .onResizedToLoad(resized -> {
                    FilterWarmer available = warmer.get();
                    if (available != null) {
                        available.loadResized(resized);
                    }
                });
        if (!geometry.equals(configured)) {
            builder.resizedFrom(configured);
        }
        if (settings.getRebuild().isAutoResize()) {
            builder.autoResize(new FilterResize.Policy(properties.getMaxFilterSize().toBytes(),
                    Math.min(FilterGeometry.MAX_BITS, properties.getMaxShardSize().toBytes() * 8)));
        }
        if (spec.mirror() != null) {
            builder.mirror(spec.mirror());
        }
        if (spec.misses() != null) {
            builder.rememberMisses(spec.misses());
        }
        return builder.build();
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
     * An application without {@code spring.application.name} keeps its filters under {@code bg};
     * with a name and no {@code key-prefix}, under {@code bg:<name>}. An application that gains a
     * name would start on new keys while its instances still running without one (or other
     * applications without a name) add to the old ones: each side would block the keys the other
     * creates. So when Redis already holds this filter under {@code bg}, startup stops and asks for
     * a choice. A Redis that cannot be asked (down at startup) is not taken as an answer either
     * way: the filter starts on the new prefix, unloaded and so blocking nothing until it is loaded.
     */
    private static void refuseToLeaveUnnamedPrefix(BitmapStore store, String name, FilterGeometry geometry,
            KeyType keyType, String keyPrefix) {
        FilterKeys unnamed = FilterKeys.of(BloomGuardProperties.DEFAULT_KEY_PREFIX, name, geometry, keyType);
        boolean present;
        try {
            present = store.length(unnamed.live()) > 0 || !store.hashGetAll(unnamed.meta()).isEmpty();
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not ask Redis whether it holds the filter under the prefix '{}' of an"
                    + " application without a name ({}); using '{}'", name, BloomGuardProperties.DEFAULT_KEY_PREFIX,
                    ex.getMessage(), keyPrefix);
            return;
        }
        if (present) {
            throw new BloomGuardConfigurationException("bloom-guard.key-prefix is not set, so filter '" + name
                    + "' would use the default '" + keyPrefix + "' (bg and spring.application.name), but Redis holds it"
                    + " under '" + BloomGuardProperties.DEFAULT_KEY_PREFIX + "', the prefix of an application without"
                    + " spring.application.name. Instances or applications still using it would add keys this one"
                    + " never sees. Set"
                    + " bloom-guard.key-prefix=" + BloomGuardProperties.DEFAULT_KEY_PREFIX + " to keep the filter, or"
                    + " bloom-guard.key-prefix=" + keyPrefix + " once everything that shares it moves together");
        }
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
        DataSource dataSource = WarmupTasks.dataSource(name, warmup.getDatasource(), primaryDataSource, beanFactory);
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
}
