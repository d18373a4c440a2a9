package dev.bloomguard.spring.autoconfigure;

import static dev.bloomguard.spring.autoconfigure.DurationRules.requireAtLeast;
import static dev.bloomguard.spring.autoconfigure.DurationRules.requireNanos;
import static dev.bloomguard.spring.autoconfigure.DurationRules.requirePositive;
import static dev.bloomguard.spring.autoconfigure.DurationRules.requireZeroOrAtLeast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.util.ClassUtils;

import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.warmup.CatchUpQuery;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.misses.RememberedMisses;

/**
 * Turns bad {@code bloom-guard.*} values into a startup failure that names the property and
 * quotes the value, before anything touches Redis.
 */
final class FilterSettingsValidator {

    /** The class the local mirror needs; Caffeine is an optional dependency. */
    private static final String CAFFEINE = "com.github.benmanes.caffeine.cache.Caffeine";

    private FilterSettingsValidator() {
    }

    /** Every setting checked, and each filter's converted: a startup failure naming the first bad property. */
    static FilterSpecs validate(BloomGuardProperties properties) {
        requirePositive("bloom-guard.redis-timeout", properties.getRedisTimeout());
        requirePositive("bloom-guard.write-timeout", properties.getWriteTimeout());
        if (properties.getKeyPrefix() != null && properties.getKeyPrefix().isBlank()) {
            throw new BloomGuardConfigurationException("bloom-guard.key-prefix must not be blank");
        }
        // The load lock and the load's hold on the journals are renewed every third of it, in whole milliseconds.
        requireAtLeast("bloom-guard.lock-ttl", properties.getLockTtl(), 3);
        requirePositive("bloom-guard.status-refresh-interval", properties.getStatusRefreshInterval());
        requireAtLeast("bloom-guard.rewind-check-interval", properties.getRewindCheckInterval(), 1);
        // The fleet's rebuild turn expires in whole milliseconds: Redis refuses PX 0.
        requireZeroOrAtLeast("bloom-guard.endpoint.rebuild-cooldown", properties.getEndpoint().getRebuildCooldown(), 1);
        requirePositive("bloom-guard.journal.retention", properties.getJournal().getRetention());
        requireAtLeast("bloom-guard.rollout.heartbeat-interval", properties.getRollout().getHeartbeatInterval(), 1);
        requireNanos("bloom-guard.rollout.grace-period", properties.getRollout().getGracePeriod());
        requireNanos("bloom-guard.circuit-breaker.open-duration", properties.getCircuitBreaker().getOpenDuration());
        requireNanos("bloom-guard.circuit-breaker.slow-call", properties.getCircuitBreaker().getSlowCall());
        if (properties.getRollout().getGracePeriod() == null || properties.getRollout().getGracePeriod()
                .compareTo(properties.getRollout().getHeartbeatInterval().multipliedBy(4)) < 0) {
            throw new BloomGuardConfigurationException("bloom-guard.rollout.grace-period ("
                    + properties.getRollout().getGracePeriod() + ") must be at least four times"
                    + " bloom-guard.rollout.heartbeat-interval (" + properties.getRollout().getHeartbeatInterval() + ")");
        }
        if (properties.getMaxBatchSize() < 1) {
            throw new BloomGuardConfigurationException("bloom-guard.max-batch-size (" + properties.getMaxBatchSize()
                    + ") must be at least 1");
        }
        if (properties.getJournal().getCapacity() < 1) {
            throw new BloomGuardConfigurationException("bloom-guard.journal.capacity ("
                    + properties.getJournal().getCapacity() + ") must be at least 1");
        }
        try {
            properties.getCircuitBreaker().toSettings();
        }
        catch (IllegalArgumentException ex) {
            throw new BloomGuardConfigurationException("bloom-guard.circuit-breaker: " + ex.getMessage());
        }
        List<FilterSpecs.Spec> specs = new ArrayList<>();
        for (Map.Entry<String, BloomGuardProperties.Filter> entry : properties.getFilters().entrySet()) {
            FilterGeometry geometry = geometry(properties, entry.getKey(), entry.getValue());
            hash(entry.getKey(), entry.getValue());
            BloomGuardProperties.Warmup warmup = entry.getValue().getWarmup();
            Duration interval = entry.getValue().getRebuild().getInterval();
            if (interval == null || interval.isNegative()) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".rebuild.interval (" + interval + ") must not be negative");
            }
            requireNanos("bloom-guard.filters." + entry.getKey() + ".rebuild.interval", interval);
            double maxShrink = entry.getValue().getRebuild().getMaxShrink();
            if (!(maxShrink >= 0 && maxShrink <= 1)) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".rebuild.max-shrink (" + maxShrink + ") must be in [0, 1]; 1 accepts any load");
            }
            BloomGuardProperties.LocalMirror mirror = entry.getValue().getLocalMirror();
            MirrorSettings mirrorSettings = null;
            if (mirror.isEnabled()) {
                requireCaffeine("bloom-guard.filters." + entry.getKey() + ".local-mirror.enabled");
                try {
                    mirrorSettings = mirrorSettings(mirror);
                }
                catch (IllegalArgumentException ex) {
                    throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey() + "." + ex.getMessage());
                }
            }
            BloomGuardProperties.Audit audit = entry.getValue().getAudit();
            if (!(audit.getSampleRate() >= 0 && audit.getSampleRate() <= 1)) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".audit.sample-rate (" + audit.getSampleRate() + ") must be in [0, 1]; 0 turns the audit off");
            }
            // Zero would let each false negative the audit finds ask for another full rebuild: a chain.
            if (audit.getRebuildCooldown() == null || audit.getRebuildCooldown().isNegative()
                    || audit.getRebuildCooldown().isZero()) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".audit.rebuild-cooldown (" + audit.getRebuildCooldown() + ") must be positive: the audit"
                        + " asks for a full rebuild of the filter at most once per cooldown");
            }
            BloomGuardProperties.Bypass bypass = entry.getValue().getBypass();
            if (bypass.getMaxRate() != null && !(bypass.getMaxRate() > 0 && bypass.getMaxRate() < Double.POSITIVE_INFINITY)) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".bypass.max-rate (" + bypass.getMaxRate() + ") must be a positive number of calls per"
                        + " second; leave it unset for the rate learned from the filter's answers");
            }
            if (bypass.getWhenExhausted() == null) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".bypass.when-exhausted must be shed or allow");
            }
            BloomGuardProperties.NegativeCache negativeCache = entry.getValue().getNegativeCache();
            RememberedMisses.Settings misses = null;
            List<Class<? extends Throwable>> missExceptions = null;
            if (negativeCache.isEnabled()) {
                requireCaffeine("bloom-guard.filters." + entry.getKey() + ".negative-cache.enabled");
                requireNanos("bloom-guard.filters." + entry.getKey() + ".negative-cache.ttl", negativeCache.getTtl());
                misses = rememberedMisses(entry.getKey(), negativeCache);
                missExceptions = missExceptions(entry.getKey(), negativeCache);
            }
            if (warmup.getKeyColumn() != null && !warmup.getKeyColumn().isBlank()
                    && (warmup.getSql() == null || warmup.getSql().isBlank())) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".warmup.key-column (" + warmup.getKeyColumn() + ") is set but there is no "
                        + "bloom-guard.filters." + entry.getKey() + ".warmup.sql to choose it from");
            }
            String property = "bloom-guard.filters." + entry.getKey() + ".warmup.";
            if (warmup.getCatchUpSql() != null && !warmup.getCatchUpSql().isBlank()) {
                if (warmup.getSql() == null || warmup.getSql().isBlank()) {
                    throw new BloomGuardConfigurationException(property + "catch-up-sql is set but " + property
                            + "sql is not: the catch-up reads rows written since the last load; set both");
                }
                if (!CatchUpQuery.namesSince(warmup.getCatchUpSql())) {
                    throw new BloomGuardConfigurationException(property + "catch-up-sql has no :since parameter:"
                            + " name the time to read from, e.g. WHERE created_at > :since");
                }
                requireAtLeast(property + "catch-up-interval", warmup.getCatchUpInterval(), 1);
                if (warmup.getCatchUpOverlap() == null || warmup.getCatchUpOverlap().isNegative()) {
                    throw new BloomGuardConfigurationException(property + "catch-up-overlap ("
                            + warmup.getCatchUpOverlap() + ") must not be negative");
                }
                requireNanos(property + "catch-up-overlap", warmup.getCatchUpOverlap());
            }
            if (warmup.getFetchSize() < 1) {
                throw new BloomGuardConfigurationException("bloom-guard.filters." + entry.getKey()
                        + ".warmup.fetch-size (" + warmup.getFetchSize() + ") must be at least 1");
            }
            specs.add(new FilterSpecs.Spec(entry.getKey(), entry.getValue(), geometry, mirrorSettings, misses,
                    missExceptions));
        }
        return new FilterSpecs(specs);
    }

    /** The filter's geometry, or a startup failure naming the property that makes it impossible. */
    static FilterGeometry geometry(BloomGuardProperties properties, String name, BloomGuardProperties.Filter filter) {
        String prefix = "bloom-guard.filters." + name;
        if (!FilterKeys.isValidFilterName(name)) {
            throw new BloomGuardConfigurationException(
                    prefix + ": a filter name may only use letters, digits, '_', '.' and '-'");
        }
        if (filter.getExpectedInsertions() < 1) {
            throw new BloomGuardConfigurationException(prefix + ".expected-insertions ("
                    + filter.getExpectedInsertions() + ") must be at least 1");
        }
        if (!(filter.getFpp() > 0.0 && filter.getFpp() < 1.0)) {
            throw new BloomGuardConfigurationException(prefix + ".fpp (" + filter.getFpp() + ") must be in (0, 1)");
        }
        if (filter.getShards() < 0) {
            throw new BloomGuardConfigurationException(prefix + ".shards (" + filter.getShards() + ") must not be negative");
        }
        FilterGeometry geometry;
        try {
            geometry = filter.getShards() > 0
                    ? FilterGeometry.withShards(filter.getExpectedInsertions(), filter.getFpp(), filter.getShards())
                    : FilterGeometry.sharded(filter.getExpectedInsertions(), filter.getFpp(),
                            Math.min(FilterGeometry.MAX_BITS, properties.getMaxShardSize().toBytes() * 8));
        }
        catch (IllegalArgumentException ex) {
            throw new BloomGuardConfigurationException(prefix + ": " + ex.getMessage());
        }
        long limit = properties.getMaxFilterSize().toBytes();
        if (geometry.totalByteSize() > limit) {
            throw new BloomGuardConfigurationException(prefix + " needs " + geometry.totalByteSize()
                    + " bytes (expected-insertions " + filter.getExpectedInsertions() + ", fpp " + filter.getFpp()
                    + "), more than bloom-guard.max-filter-size (" + limit + " bytes)");
        }
        return geometry;
    }

    /**
     * Checks the filter's hash and secret: a secret only for siphash, and only of the one form.
     * The message gives a bad secret's length, never its text.
     */
    static void hash(String name, BloomGuardProperties.Filter filter) {
        String property = "bloom-guard.filters." + name + ".hash";
        if (filter.getHash() == null) {
            throw new BloomGuardConfigurationException(property + " must be murmur3 or siphash");
        }
        String secret = filter.getHashSecret();
        if (secret == null || secret.isEmpty()) {
            return;
        }
        if (filter.getHash() != KeyHash.Algorithm.SIPHASH) {
            throw new BloomGuardConfigurationException(property + "-secret is set but " + property + " is "
                    + filter.getHash().id() + ": only siphash takes a secret; set " + property + "=siphash or remove"
                    + " the secret");
        }
        try {
            KeyHash.sipHash(secret);
        }
        catch (IllegalArgumentException ex) {
            throw new BloomGuardConfigurationException(property + "-secret: " + ex.getMessage());
        }
    }

    static MirrorSettings mirrorSettings(BloomGuardProperties.LocalMirror mirror) {
        return new MirrorSettings(mirror.getMaxMemory().toBytes(), mirror.getRefreshAfter(),
                MirrorSettings.DEFAULT_PAGE_BYTES, mirror.isTrustAbsent());
    }

    /** The core's settings of a filter's remembered misses. */
    static RememberedMisses.Settings rememberedMisses(String filter, BloomGuardProperties.NegativeCache negativeCache) {
        try {
            return new RememberedMisses.Settings(negativeCache.getTtl(), negativeCache.getMaxEntries(),
                    negativeCache.isShared());
        }
        catch (IllegalArgumentException ex) {
            throw new BloomGuardConfigurationException("bloom-guard.filters." + filter + "." + ex.getMessage());
        }
    }

    /**
     * The exception types that mean "not found" for {@code filter}, loaded now so that a
     * misspelt name fails the application at startup instead of never matching.
     */
    private static List<Class<? extends Throwable>> missExceptions(String filter,
            BloomGuardProperties.NegativeCache negativeCache) {
        List<Class<? extends Throwable>> types = new ArrayList<>();
        for (String name : negativeCache.getExceptions()) {
            String property = "bloom-guard.filters." + filter + ".negative-cache.exceptions";
            Class<?> type;
            try {
                type = ClassUtils.forName(name.trim(), FilterSettingsValidator.class.getClassLoader());
            }
            catch (ClassNotFoundException | LinkageError ex) {
                throw new BloomGuardConfigurationException(property + " names " + name
                        + ", which is not on the class path; give the fully qualified name of an exception class");
            }
            if (!Throwable.class.isAssignableFrom(type)) {
                throw new BloomGuardConfigurationException(property + " names " + name
                        + ", which is not an exception (a Throwable)");
            }
            types.add(type.asSubclass(Throwable.class));
        }
        return List.copyOf(types);
    }

    /**
     * The mirror keeps its pages in a Caffeine cache, and Caffeine is an optional dependency of the
     * starter: without this check a mirror asked for without it fails deep in bean creation with a
     * NoClassDefFoundError that names neither the artifact nor the property.
     */
    private static void requireCaffeine(String property) {
        if (!ClassUtils.isPresent(CAFFEINE, FilterSettingsValidator.class.getClassLoader())) {
            throw new BloomGuardConfigurationException(property + "=true needs Caffeine, which is not on the class"
                    + " path: add the dependency com.github.ben-manes.caffeine:caffeine (optional in bloom-guard, as"
                    + " only the local mirror and the negative cache use it), or set " + property + "=false");
        }
    }
}
