package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * The rollout registry of one filter in Redis, as {@link FilterGenerations} reads and writes it:
 * its three hashes (instances, generations, generations found left unwritten), the heartbeat
 * script, the search for generations left unwritten before it, the deletion of a generation
 * nobody uses, and an instance's leaving. A generation's keys come from its descriptor here.
 *
 * <p>Holds no state of its own beyond the keys' names: what the registry says is decided on by
 * {@link FilterGenerations}, under whose lock every method but {@link #leave} is called.
 */
final class GenerationRegistry {

    private static final Logger log = LoggerFactory.getLogger(FilterGenerations.class);

    /** The most an instance that leaves waits for Redis to take it out of the registry. */
    static final Duration LEAVE_WAIT = Duration.ofMillis(500);

    private final Generation own;
    private final String ownDescriptor;
    private final BitmapStore store;
    private final String keyPrefix;
    private final String instanceId;
    private final String instancesKey;
    private final String generationsKey;
    private final String invalidatedKey;
    private final Duration heartbeat;
    private final Duration grace;

    GenerationRegistry(Generation own, String ownDescriptor, BitmapStore store, String keyPrefix,
            String instanceId, Duration heartbeat, Duration grace) {
        this.own = own;
        this.ownDescriptor = ownDescriptor;
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.instanceId = instanceId;
        this.instancesKey = FilterKeys.filterWide(keyPrefix, own.name(), "instances");
        this.generationsKey = FilterGenerations.generationsKey(keyPrefix, own.name());
        this.invalidatedKey = FilterKeys.filterWide(keyPrefix, own.name(), "invalidated");
        this.heartbeat = heartbeat;
        this.grace = grace;
    }

    /** Now by Redis's clock, on the registry's node (the clock of every time the registry holds). */
    long timeMillis() {
        return store.timeMillis(generationsKey);
    }

    String liveKey(String descriptor) {
        return keys(descriptor).live();
    }

    String liveKeyOrNull(String descriptor) {
        try {
            return liveKey(descriptor);
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    private FilterKeys keys(String descriptor) {
        return FilterKeys.of(keyPrefix, own.name(), GenerationDescriptor.geometry(descriptor), GenerationDescriptor.keyType(descriptor), GenerationDescriptor.hashId(descriptor));
    }

    /**
     * The heartbeat script: registers {@code heartbeated}, claims to write to {@code writes} (each
     * since its time in {@code writingSince}), records {@code leftUnwritten}, reads the registry.
     */
    BitmapStore.Heartbeat beat(List<String> heartbeated, Collection<String> writes, Map<String, Long> writingSince,
            List<String> leftUnwritten) {
        String value = InstanceEntry.value(ownDescriptor, writes, writingSince);
        List<String> records = leftUnwritten.stream().map(this::liveKey).distinct().toList();
        return store.heartbeat(instancesKey, generationsKey, invalidatedKey, instanceId, value, heartbeated,
                records);
    }

    /**
     * A generation this instance heartbeats that nobody had heartbeated for the grace period, while
     * an instance of another generation ran later than that: those instances may have stopped
     * writing to it (a release before this one does so without saying it in the registry), so it
     * may lack their adds, although its metadata says its load covered every writer. A rollback
     * that returns to the previous configuration after its grace period, a restart of the last
     * instance of a generation, an instance whose heartbeats failed for that long.
     *
     * <p>Recorded in Redis by the very script that heartbeats it again, at the same time (a
     * heartbeat that does not run records nothing, and the next one finds the same; one whose
     * reply is lost has recorded it): from then on, on every instance, a bitmap of it loaded
     * before does not count as covered, and no load counts as covering until every other
     * instance has heartbeated since (what it said it writes to was decided before). Its ready
     * markers are cleared after that heartbeat too, so that the checks of an instance that has
     * not heartbeated since bypass it.
     *
     * @return the descriptors, of those {@code heartbeated}, found left unwritten
     */
    List<String> leftUnwritten(List<String> heartbeated) {
        BitmapStore.Registry registry = store.readRegistry(generationsKey, invalidatedKey);
        // By live key: descriptors that name the same keys are one generation, seen at the freshest.
        Map<String, Long> seenByKeys = new HashMap<>();
        registry.generations().forEach((descriptor, seen) -> {
            String live = liveKeyOrNull(descriptor);
            if (live != null) {
                seenByKeys.merge(live, Long.parseLong(seen), Math::max);
            }
        });
        List<String> found = new ArrayList<>();
        for (String descriptor : heartbeated) {
            String live = liveKey(descriptor);
            Long seen = seenByKeys.get(live);
            if (seen == null || seen >= registry.now() - grace.toMillis()) {
                continue;
            }
            long laterThanItsGrace = seen + grace.toMillis() - heartbeat.toMillis();
            if (seenByKeys.entrySet().stream()
                    .anyMatch(other -> !other.getKey().equals(live) && other.getValue() > laterThanItsGrace)) {
                log.warn("Filter '{}': generation {} was heartbeated by no instance for {} s while others ran on, so it"
                        + " may lack their adds; it does not answer until loaded again", own.name(), descriptor,
                        (registry.now() - seen) / 1000);
                found.add(descriptor);
            }
        }
        return found;
    }

    /** Clears the ready markers of {@code descriptors}' shards, as far as Redis lets it (the record in Redis stands). */
    void clearMarkers(List<String> descriptors) {
        for (String descriptor : descriptors) {
            try {
                FilterGeometry geometry = GenerationDescriptor.geometry(descriptor);
                FilterKeys keys = keys(descriptor);
                for (int shard = 0; shard < geometry.shards(); shard++) {
                    store.clearBit(keys.live(shard), geometry.markerOffset());
                }
            }
            catch (BitmapStoreException ex) {
                log.debug("Filter '{}': could not clear the ready markers of generation {} (the record stands): {}",
                        own.name(), descriptor, ex.getMessage());
            }
        }
    }

    /**
     * Takes a generation nobody uses out of the registry; deletes its keys when {@code withKeys}
     * (once per set of keys). The caller forgets its filter after.
     */
    void delete(String descriptor, boolean withKeys) {
        if (withKeys) {
            // The keys before the registry's entry, shard 0 (its meta) last: a deletion cut short
            // is tried again at the next heartbeat, and never leaves a loaded bitmap unregistered.
            FilterKeys keys = keys(descriptor);
            log.info("Filter '{}': deleting generation {} ({}), which no instance has used for {}", own.name(),
                    descriptor, keys.live(), grace);
            for (int shard = GenerationDescriptor.geometry(descriptor).shards() - 1; shard >= 0; shard--) {
                BitmapStore.JournalKeys journal = keys.journalKeys(shard);
                List<String> shardKeys = new ArrayList<>(List.of(keys.live(shard), keys.addCount(shard),
                        journal.current(), journal.previous(), journal.since(), journal.dropped(), journal.loading(),
                        keys.meta(shard)));
                if (shard == 0) {
                    shardKeys.add(keys.lock()); // in shard 0's slot
                }
                store.delete(shardKeys.toArray(String[]::new));
            }
        }
        if (withKeys) {
            store.hashDelete(invalidatedKey, keys(descriptor).live());
        }
        store.hashDelete(generationsKey, descriptor);
    }

    /** Takes an instance whose heartbeats stopped for the grace period and one heartbeat out of the registry. */
    void forget(String instance) {
        store.hashDelete(instancesKey, instance);
    }

    /**
     * Takes this instance out of the registry, so that the generations it wrote to need not wait
     * for it: a courtesy, since its entry expires after the grace period anyway, so a shutdown
     * waits at most {@link #LEAVE_WAIT} for a Redis that does not answer.
     */
    void leave() {
        try {
            store.hashDelete(instancesKey, instanceId, LEAVE_WAIT);
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not leave the rollout registry: {}", own.name(), ex.getMessage());
        }
    }
}
