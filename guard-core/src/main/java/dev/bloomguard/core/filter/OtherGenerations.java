package dev.bloomguard.core.filter;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Function;

import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.rollout.GenerationDescriptor;

/**
 * The other generations of a filter, met in the registry during a rolling change or an
 * auto-resize, built as parts of the filter ({@link FilterParts#ofGeneration}) from a descriptor
 * and the filter's own settings: the same store, prefix, timeouts, journal, misses and executor,
 * and the hash the descriptor names.
 */
final class OtherGenerations {

    private OtherGenerations() {
    }

    /**
     * Builds the other generations of this filter met during a rolling change, with the
     * builder's settings as they are now (a later change to the builder does not reach them).
     */
    static Function<String, FilterParts> of(FilterSetup setup) {
        String name = setup.name;
        BitmapStore store = setup.store;
        String prefix = setup.keyPrefix;
        Duration timeout = setup.checkTimeout;
        String instance = setup.instanceId;
        KeyHash own = setup.hash;
        Duration retention = setup.journalRetention;
        long capacity = setup.journalCapacity;
        int batch = setup.maxBatchSize;
        RememberedMisses.Settings remembered = setup.misses;
        FilterResize.Policy resize = setup.resizePolicy;
        double maxShrink = setup.maxShrink;
        Duration hold = setup.loadHold;
        Executor executor = setup.background;
        return descriptor -> FilterParts.ofGeneration(RedisBloomFilter.builder(name, GenerationDescriptor.geometry(descriptor),
                store).keyPrefix(prefix).checkTimeout(timeout).instanceId(instance)
                .keyType(GenerationDescriptor.keyType(descriptor))
                .hash(hashOf(store, name, own, prefix, GenerationDescriptor.hashId(descriptor)))
                .journalRetention(retention)
                .journalCapacity(capacity).maxBatchSize(batch).rememberMisses(remembered).autoResize(resize)
                .maxShrink(maxShrink).loadHold(hold).background(executor));
    }

    /**
     * The hash of another generation of this filter: its own when the ids match, else one whose
     * secret Redis holds. One this instance cannot find cannot be written to: the heartbeat that
     * meets it fails, so that this instance soon neither answers nor adds (bypass, adds retried)
     * rather than leave keys out of a generation that others read.
     */
    private static KeyHash hashOf(BitmapStore store, String name, KeyHash own, String prefix, String hashId) {
        if (hashId.equals(own.id())) {
            return own;
        }
        if (hashId.equals(KeyHash.murmur3().id())) {
            return KeyHash.murmur3();
        }
        return HashSecrets.find(store, prefix, name, hashId).orElseThrow(() -> new BitmapStoreException("filter '"
                + name + "': another instance uses a generation hashed with siphash " + hashId + ", whose secret"
                + " this instance cannot find in Redis (its instances publish it at each heartbeat), so it cannot"
                + " add to it yet", null));
    }
}
