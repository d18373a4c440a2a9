package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * An instance of a release before auto-resize, by that release's rules of a rolling change: it
 * heartbeats its own generation alone into the registry, writes to its own generation and to
 * every generation some instance heartbeated within the grace period, and knows nothing of
 * resize decisions, nor of a generation no heartbeat names. It never invalidates a generation it
 * stops writing to. Each heartbeat is called by hand.
 */
final class EarlierReleaseInstance implements AutoCloseable {

    private final BitmapStore store;
    private final RedisBloomFilter own;
    private final String instanceId;
    private final Duration grace;
    private final String instancesKey;
    private final String generationsKey;
    private final String prefix;
    /** Written to, by descriptor, with when this instance began to (0: since its start). */
    private final Map<String, Long> writing = new LinkedHashMap<>();
    private final List<RedisBloomFilter> others = new ArrayList<>();
    private boolean first = true;

    EarlierReleaseInstance(BitmapStore store, String prefix, RedisBloomFilter own, String instanceId, Duration grace) {
        this.store = store;
        this.prefix = prefix;
        this.own = own;
        this.instanceId = instanceId;
        this.grace = grace;
        this.instancesKey = FilterKeys.filterWide(prefix, own.name(), "instances");
        this.generationsKey = FilterKeys.filterWide(prefix, own.name(), "generations");
    }

    void heartbeat() {
        String ownDescriptor = GenerationDescriptor.of(own.geometry(), own.keyType().orElse(null), own.hash().id());
        writing.putIfAbsent(ownDescriptor, 0L);
        StringBuilder writes = new StringBuilder();
        writing.forEach((descriptor, since) -> writes.append(writes.length() == 0 ? "" : ",").append(descriptor)
                .append('@').append(since));
        // That release's script reads no :invalidated hash; this one's does, and its answer is ignored here.
        BitmapStore.Heartbeat beat = store.heartbeat(instancesKey, generationsKey,
                FilterKeys.filterWide(prefix, own.name(), "invalidated"), instanceId, ownDescriptor + "#hashes|" + writes,
                List.of(ownDescriptor), List.of());
        others.clear();
        List<String> written = new ArrayList<>(List.of(ownDescriptor));
        beat.generations().forEach((descriptor, seen) -> {
            FilterKeys keys = FilterKeys.of(prefix, own.name(), GenerationDescriptor.geometry(descriptor),
                    GenerationDescriptor.keyType(descriptor), GenerationDescriptor.hashId(descriptor));
            if (!keys.live().equals(own.keys().live()) && Long.parseLong(seen) >= beat.now() - grace.toMillis()) {
                others.add(RedisBloomFilter.builder(own.name(), GenerationDescriptor.geometry(descriptor), store)
                        .keyPrefix(prefix).keyType(GenerationDescriptor.keyType(descriptor))
                        .checkTimeout(Duration.ofSeconds(5)).build());
                written.add(descriptor);
                writing.putIfAbsent(descriptor, first ? 0L : beat.now());
            }
        });
        writing.keySet().retainAll(written);
        first = false;
    }

    /** Adds {@code key} to the own generation and to every other one written to. */
    void add(Object key) {
        own.add(key);
        others.forEach(other -> other.add(key));
    }

    /** The live keys of the other generations this instance writes to. */
    List<String> othersWritten() {
        return others.stream().map(other -> other.keys().live()).toList();
    }

    @Override
    public void close() {
        store.hashDelete(instancesKey, instanceId);
    }
}
