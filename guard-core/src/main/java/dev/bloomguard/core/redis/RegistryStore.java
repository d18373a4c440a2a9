package dev.bloomguard.core.redis;

import java.util.List;
import java.util.Map;

/**
 * The registry of a rolling change: the heartbeat that says which generations an instance reads
 * and writes, the registry read, and Redis's clock.
 *
 * <p>A role of {@link BitmapStore}; every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface RegistryStore {

    /**
     * In one script, by Redis's clock: {@code HSET instancesKey instanceId "<instanceValue>|<now>"},
     * {@code HSET generationsKey generation <now>} for each of {@code generations},
     * {@code HSET invalidatedKey key <now>} for each of {@code invalidated}, then the three hashes whole.
     */
    Heartbeat heartbeat(String instancesKey, String generationsKey, String invalidatedKey, String instanceId,
            String instanceValue, List<String> generations, List<String> invalidated);

    /** What {@link #heartbeat} read: Redis's time (ms) and the hashes. */
    record Heartbeat(long now, Map<String, String> instances, Map<String, String> generations,
            Map<String, String> invalidated) {
    }

    /** In one script, by Redis's clock: the hashes {@code generationsKey} and {@code invalidatedKey}, unchanged. */
    Registry readRegistry(String generationsKey, String invalidatedKey);

    /** What {@link #readRegistry} read. */
    record Registry(long now, Map<String, String> generations, Map<String, String> invalidated) {
    }

    /**
     * Redis's clock ({@code TIME}), in milliseconds, as the node serving {@code slotKey}'s slot
     * reads it (the key is not touched): times compared with each other come from one node's clock.
     */
    long timeMillis(String slotKey);
}
