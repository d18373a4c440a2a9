package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * Which other generations a heartbeat of {@link FilterGenerations} writes to and may read from:
 * every generation some instance heartbeated within the grace period (read: within the grace
 * period less two heartbeats, and of the own key type), and those auto-resize grows them into
 * ({@link ResizeFollowing}); each with when this instance began to write to it. A generation nobody
 * heartbeated for the grace period and one heartbeat is deleted on the way.
 *
 * <p>The one thing easy to get wrong: an instance must say in the registry that it stops writing
 * to a generation before it stops ({@link #decide}). Its maps are guarded by
 * {@link FilterGenerations}'s lock: every method is called from its heartbeat.
 */
final class WrittenGenerations<G extends Generation> {

    /** Claims of generations stopped written to in one heartbeat, before it gives up (the registry kept changing). */
    private static final int MAX_CLAIMS = 3;

    private final G own;
    private final String ownDescriptor;
    private final Duration heartbeat;
    private final Duration grace;
    private final Function<String, G> foreignFactory;
    private final GenerationRegistry registry;
    private final ResizeFollowing<G> resizes;
    private final Map<String, G> foreign = new HashMap<>();
    /** Generations this instance writes to, with when it began (0: since it started). */
    private final Map<String, Long> writingSince = new LinkedHashMap<>();

    WrittenGenerations(G own, String ownDescriptor, Duration heartbeat, Duration grace,
            Function<String, G> foreignFactory, GenerationRegistry registry, ResizeFollowing<G> resizes) {
        this.own = own;
        this.ownDescriptor = ownDescriptor;
        this.heartbeat = heartbeat;
        this.grace = grace;
        this.foreignFactory = foreignFactory;
        this.registry = registry;
        this.resizes = resizes;
    }

    /**
     * What a heartbeat decided to write to and read from.
     *
     * @param beat the registry as the heartbeat that decided read it
     * @param resizes the generations auto-resize decided after the own one, in order
     */
    record Written<G extends Generation>(BitmapStore.Heartbeat beat, List<G> alsoWritten,
            Map<String, G> readable, List<G> resizes) {
    }

    /** The own generation is written to, since this instance's start. */
    void writeOwn() {
        writingSince.putIfAbsent(ownDescriptor, 0L);
    }

    /** A heartbeat that claims to write to every generation written to until now; see {@link GenerationRegistry#beat}. */
    BitmapStore.Heartbeat beat(List<String> heartbeated, List<String> leftUnwritten) {
        return registry.beat(heartbeated, writingSince.keySet(), writingSince, leftUnwritten);
    }

    /**
     * Decides from {@code beat} what to write to and read from. Claim first, then stop: the
     * registry must say this instance no longer writes to a generation before it stops, or an
     * instance returning to that generation meanwhile would count it as a writer and load a bitmap
     * that misses its adds. Read again after the claim: one heartbeated meanwhile is written to on,
     * and one found stale only now is claimed in turn.
     *
     * @throws BitmapStoreException when Redis fails, or the registry kept changing
     */
    Written<G> decide(BitmapStore.Heartbeat beat, List<String> heartbeated, boolean first, List<String> ownChain) {
        Written<G> decision = written(beat, first, ownChain);
        Set<String> claimedStopped = new HashSet<>();
        for (int round = 0; !claimedStopped.containsAll(stopping(decision)); round++) {
            if (round == MAX_CLAIMS) {
                throw new BitmapStoreException("filter '" + own.name() + "': the generations to write to kept changing"
                        + " while this instance claimed which it stops writing to; the previous decision stands", null);
            }
            claimedStopped.addAll(stopping(decision));
            Set<String> claimed = new LinkedHashSet<>(writingSince.keySet());
            claimed.removeAll(claimedStopped);
            BitmapStore.Heartbeat claim = registry.beat(heartbeated, claimed, writingSince, List.of());
            decision = written(claim, first, ownChain);
        }
        return decision;
    }

    /** Forgets when this instance began to write to the generations {@code decision} writes to no more. */
    void forgetStopped(Written<G> decision) {
        List<G> alsoWritten = decision.alsoWritten();
        writingSince.keySet().removeIf(descriptor -> !descriptor.equals(ownDescriptor)
                && alsoWritten.stream().noneMatch(filter -> GenerationDescriptor.of(filter).equals(descriptor)));
    }

    /** Generations written to until now whose keys this heartbeat writes to no more. */
    private Set<String> stopping(Written<G> written) {
        Set<String> lives = new HashSet<>();
        lives.add(own.keys().live());
        written.alsoWritten().forEach(filter -> lives.add(filter.keys().live()));
        Set<String> stopping = new LinkedHashSet<>();
        for (String descriptor : writingSince.keySet()) {
            if (!lives.contains(registry.liveKeyOrNull(descriptor))) {
                stopping.add(descriptor);
            }
        }
        return stopping;
    }

    private Written<G> written(BitmapStore.Heartbeat beat, boolean first, List<String> ownChain) {
        long now = beat.now();
        foreign.keySet().retainAll(beat.generations().keySet());
        long writeAfter = now - grace.toMillis();
        long readAfter = now - grace.toMillis() + 2 * heartbeat.toMillis();
        List<G> alsoWritten = new ArrayList<>();
        Map<String, G> readable = new TreeMap<>();
        // Descriptors that differ only in a key type stored like no key type (integer, uuid, text,
        // bytes) name the same keys: one generation, judged by the freshest of them.
        Map<String, Long> seenByKeys = new HashMap<>();
        Map<String, String> descriptorByKeys = new HashMap<>();
        for (Map.Entry<String, String> generation : beat.generations().entrySet()) {
            String live = registry.liveKey(generation.getKey());
            long seen = Long.parseLong(generation.getValue());
            if (seenByKeys.merge(live, seen, Math::max) == seen) {
                descriptorByKeys.put(live, generation.getKey());
            }
        }
        for (Map.Entry<String, String> generation : beat.generations().entrySet()) {
            String descriptor = generation.getKey();
            String live = registry.liveKey(descriptor);
            if (live.equals(own.keys().live())) {
                continue;
            }
            long seen = seenByKeys.get(live);
            if (seen < writeAfter - heartbeat.toMillis()) {
                if (!ownChain.contains(descriptor)) { // a generation this one grows into is not unused
                    registry.delete(descriptor, descriptorByKeys.get(live).equals(descriptor));
                    foreign.remove(descriptor);
                }
                continue;
            }
            if (seen >= writeAfter && descriptorByKeys.get(live).equals(descriptor)) {
                G filter = foreign.computeIfAbsent(descriptor, foreignFactory);
                alsoWritten.add(filter);
                writingSince.putIfAbsent(descriptor, first ? 0L : now);
                // Only a generation whose keys compare as ours may answer for us: one of another key
                // type hashed "ALICE" and "alice" (or "AB12" and "AB12    ") apart.
                if (seen >= readAfter && Objects.equals(GenerationDescriptor.keyType(descriptor), own.keyType().orElse(null))) {
                    readable.put(descriptor, filter);
                }
            }
        }
        List<G> resized = resizes.writeResizes(ownChain, alsoWritten, writingSince, first, now);
        return new Written<>(beat, alsoWritten, readable, resized);
    }
}
