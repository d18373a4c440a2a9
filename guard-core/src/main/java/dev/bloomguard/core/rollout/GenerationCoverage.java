package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import dev.bloomguard.core.Hold;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * Whether a generation's bitmap holds every key, for {@link FilterGenerations}: its load covered
 * every writer (by its metadata) and began after the generation was last found left unwritten;
 * whether a load of the own generation begun now would cover every instance; and which covered
 * generation of another configuration may answer meanwhile.
 *
 * <p>The one thing easy to miss: "covered" in a bitmap's metadata is not enough. A generation some
 * instance found left unwritten ({@link GenerationRegistry#leftUnwritten}) may lack adds made
 * meanwhile whatever its metadata says; those records, as of the last heartbeat, live here.
 */
final class GenerationCoverage {

    /** The field of a live bitmap's metadata naming the source it was loaded from, if its loader gave one. */
    static final String SOURCE = "source";

    private final Generation own;
    private final String ownDescriptor;
    /** Whether the own generation is keyed-hashed: see {@link InstanceEntry#KNOWS_HASHES}. */
    private final boolean ownKeyed;
    private final BitmapStore store;
    private final String instanceId;
    private final Duration heartbeat;
    private final GenerationRegistry registry;
    /**
     * Generations some instance found left unwritten ({@link GenerationRegistry#leftUnwritten}), by live
     * key, with when (Redis ms), as of the last heartbeat: a bitmap whose load began before counts
     * as not covered. Kept in Redis (the registry's {@code :invalidated} hash), so that every instance, and this
     * one after a restart, knows.
     */
    private volatile Map<String, Long> invalidatedAt = Map.of();

    GenerationCoverage(Generation own, String ownDescriptor, boolean ownKeyed, BitmapStore store,
            String instanceId, Duration heartbeat, GenerationRegistry registry) {
        this.own = own;
        this.ownDescriptor = ownDescriptor;
        this.ownKeyed = ownKeyed;
        this.store = store;
        this.instanceId = instanceId;
        this.heartbeat = heartbeat;
        this.registry = registry;
    }

    /** Takes the heartbeat's reading of the generations found left unwritten: live key to when (Redis ms). */
    void invalidated(Map<String, String> records) {
        Map<String, Long> invalidated = new HashMap<>();
        records.forEach((live, at) -> invalidated.put(live, Long.parseLong(at)));
        invalidatedAt = Map.copyOf(invalidated);
    }

    /** True when the own generation was found left unwritten after a load that began at {@code began} (Redis ms). */
    boolean ownInvalidatedSince(long began) {
        Long invalidated = invalidatedAt.get(own.keys().live());
        return invalidated != null && began <= invalidated;
    }

    /**
     * True when every instance of the grace period writes to the own generation, since its start or
     * for at least the journal's retention, as of a heartbeat's reading of them at {@code now}; an
     * instance not seen for the grace period and one heartbeat is taken out of the registry on the way.
     */
    boolean ownCoverable(Map<String, String> instances, long writeAfter, long now) {
        boolean coverable = true;
        for (Map.Entry<String, String> instance : instances.entrySet()) {
            InstanceEntry entry = InstanceEntry.parse(instance.getValue());
            long seen = entry.seen();
            if (seen < writeAfter - heartbeat.toMillis()) {
                registry.forget(instance.getKey());
                continue;
            }
            if (seen < writeAfter) {
                continue;
            }
            Long since = entry.knowsHashes() || !ownKeyed ? entry.since(ownDescriptor::equals) : null;
            if (since == null || (since != 0 && since + own.journalRetention().toMillis() > now)
                    || unsureSinceInvalidated(own, instance.getKey(), seen)) {
                coverable = false;
            }
        }
        return coverable;
    }

    /**
     * The first of {@code candidates} whose live bitmap covers every writer, or null; it answers
     * "absent" only when loaded from the source the own generation's bitmap was ({@code ownSource}).
     */
    <G extends Generation> G firstCovered(Collection<G> candidates, String ownSource) {
        for (G candidate : candidates) {
            Map<String, String> meta = store.hashGetAll(candidate.keys().meta());
            if (covered(meta, candidate)) {
                // A rolling change of geometry and warmup query at once: the other generation holds
                // the rows of its instances' query, which may leave out some of ours, and our
                // warmer lifts our suspension once our own generation is loaded from our query,
                // whatever generation answers. Suspended here, its "absent" lets the key through
                // until our own generation answers (or both bitmaps come from one source).
                holdIfForeign(candidate, meta.get(SOURCE), ownSource);
                return candidate;
            }
        }
        return null;
    }

    /** Holds {@link Hold#FOREIGN_SOURCE} on {@code generation} while its source is not {@code ownSource}. */
    static void holdIfForeign(Generation generation, String source, String ownSource) {
        if (Objects.equals(source, ownSource)) {
            generation.release(Hold.FOREIGN_SOURCE);
        }
        else {
            generation.hold(Hold.FOREIGN_SOURCE);
        }
    }

    /**
     * True when a live bitmap, by its metadata, came from a load that covered every writer. A bitmap
     * loaded by a release before generations were tracked (metadata without the field) was the
     * only generation then; one never loaded (no metadata) holds nothing.
     */
    boolean covered(Map<String, String> meta, Generation generation) {
        boolean covered = "1".equals(meta.get("covered")) || (!meta.isEmpty() && !meta.containsKey("covered"));
        Long invalidated = invalidatedAt.get(generation.keys().live());
        // Found left unwritten: only a load begun after that holds what was added meanwhile.
        return covered && (invalidated == null || LoadOrder.began(meta) > invalidated);
    }

    /**
     * True when this instance found {@code generation} left unwritten after {@code instance}'s
     * last heartbeat (at {@code seen}): what that heartbeat says it writes was decided before, and
     * an instance of a release before this one may have stopped writing to it since without
     * saying so. Its next heartbeat tells.
     */
    boolean unsureSinceInvalidated(Generation generation, String instance, long seen) {
        Long invalidated = invalidatedAt.get(generation.keys().live());
        return invalidated != null && !instance.equals(instanceId) && seen <= invalidated;
    }
}
