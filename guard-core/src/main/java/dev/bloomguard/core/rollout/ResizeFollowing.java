package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.redis.BitmapStore;

/**
 * How {@link FilterGenerations} follows auto-resize ({@link FilterResize}): the generations decided
 * after the own one, and after every other generation written to, are written to from the heartbeat
 * that finds them; the largest of the own one's is loaded once a load of it covers every instance,
 * and answers once loaded after the own generation's last load.
 *
 * <p>The one thing easy to get wrong: a decision only names a generation. It is written to by
 * every instance before any loads it, and written to for the grace period after its decision is
 * gone from Redis, since an instance that has not heartbeated since may still answer from it. Its
 * maps are guarded by {@link FilterGenerations}'s lock: they are touched only by its heartbeat.
 */
final class ResizeFollowing<G extends Generation> {

    private static final Logger log = LoggerFactory.getLogger(FilterGenerations.class);

    private final G own;
    private final String ownDescriptor;
    /** Whether the own generation is keyed-hashed: see {@link InstanceEntry#KNOWS_HASHES}. */
    private final boolean ownKeyed;
    private final BitmapStore store;
    private final String keyPrefix;
    private final Duration grace;
    private final Function<String, G> foreignFactory;
    private final GenerationRegistry registry;
    private final GenerationCoverage coverage;
    /** Generations auto-resize decided ({@link FilterResize}) that no heartbeat names, by descriptor. */
    private final Map<String, G> resized = new HashMap<>();
    /** When (Redis ms) each generation written to as a resize was last found in a decision. */
    private final Map<String, Long> resizeSeen = new HashMap<>();
    /** The generations decided after the own one, in order, as of the last heartbeat; see {@link #onResizedToLoad}. */
    private volatile List<G> ownResizes = List.of();
    private volatile Consumer<G> loadResized = filter -> { };

    ResizeFollowing(G own, String ownDescriptor, boolean ownKeyed, BitmapStore store, String keyPrefix,
            Duration grace, Function<String, G> foreignFactory, GenerationRegistry registry,
            GenerationCoverage coverage) {
        this.own = own;
        this.ownDescriptor = ownDescriptor;
        this.ownKeyed = ownKeyed;
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.grace = grace;
        this.foreignFactory = foreignFactory;
        this.registry = registry;
        this.coverage = coverage;
    }

    /** See {@link FilterGenerations#onResizedToLoad}. */
    void onResizedToLoad(Consumer<G> listener) {
        this.loadResized = listener;
    }

    /** True when {@code filter} is one of the generations decided after the own one, as of the last heartbeat. */
    boolean ownResize(G filter) {
        return ownResizes.contains(filter);
    }

    /**
     * Auto-resize: the generations decided after the own one ({@code ownChain}) and after each
     * other generation written to are written to as well, from now on (from the start at the
     * first heartbeat, before which this instance adds nothing), whether or not an instance runs
     * them as its own; so every instance adds to a grown generation before any loads it. One whose
     * decision is gone (evicted, lost in a failover) is still written to for the grace period: an
     * instance that has not heartbeated since may still answer from it.
     *
     * @param alsoWritten the other generations written to, which this adds to
     * @param writingSince when this instance began to write to each generation, which this adds to
     * @return the filters of {@code ownChain}, in order
     */
    List<G> writeResizes(List<String> ownChain, List<G> alsoWritten,
            Map<String, Long> writingSince, boolean first, long now) {
        Set<String> decided = new LinkedHashSet<>(ownChain);
        for (G other : List.copyOf(alsoWritten)) {
            decided.addAll(FilterResize.chain(store, keyPrefix, own.name(), GenerationDescriptor.of(other)));
        }
        decided.forEach(descriptor -> resizeSeen.put(descriptor, now));
        resizeSeen.values().removeIf(seen -> seen < now - grace.toMillis());
        decided.addAll(resizeSeen.keySet());
        resized.keySet().retainAll(decided);
        Set<String> writtenKeys = new HashSet<>();
        writtenKeys.add(own.keys().live());
        alsoWritten.forEach(filter -> writtenKeys.add(filter.keys().live()));
        List<G> ownResized = new ArrayList<>();
        for (String descriptor : decided) {
            String live = registry.liveKey(descriptor);
            if (live.equals(own.keys().live())) {
                continue;
            }
            G filter;
            if (writtenKeys.add(live)) {
                filter = resized.computeIfAbsent(descriptor, foreignFactory);
                alsoWritten.add(filter);
                writingSince.putIfAbsent(descriptor, first ? 0L : now);
            }
            else {
                filter = alsoWritten.stream().filter(written -> written.keys().live().equals(live)).findFirst()
                        .orElseThrow();
            }
            if (ownChain.contains(descriptor)) {
                ownResized.add(filter);
            }
        }
        return ownResized;
    }

    /**
     * What Redis holds of the generations decided after the own one, read once per heartbeat.
     *
     * @param resizes the generations, in order
     * @param metas each one's live metadata
     * @param complete those whose every shard is ready
     */
    record Loads<G extends Generation>(List<G> resizes, Map<G, Map<String, String>> metas,
            Set<G> complete) {
    }

    /** Reads the metadata and readiness of {@code resizes}' bitmaps. */
    Loads<G> read(List<G> resizes) {
        Map<G, Map<String, String>> resizeMetas = new HashMap<>();
        Set<G> resizesComplete = new HashSet<>();
        for (G resize : resizes) {
            resizeMetas.put(resize, store.hashGetAll(resize.keys().meta()));
            if (resize.isComplete().orElse(false)) {
                resizesComplete.add(resize);
            }
        }
        return new Loads<>(resizes, resizeMetas, resizesComplete);
    }

    /** How far the instances of the grace period write to a generation auto-resize decided. */
    private enum ResizeCoverage {
        /** Some instance does not write to it (it has not heartbeated since it learnt of it, or knows no resizes). */
        NOT_WRITTEN,
        /** Every instance writes to it, some for less than the journal's retention. */
        WRITTEN,
        /** Every instance writes to it since its start or for at least the journal's retention: a load now covers them. */
        COVERABLE
    }

    private ResizeCoverage resizeCoverage(G resize, Map<String, String> instances, long writeAfter,
            long now) {
        String live = resize.keys().live();
        ResizeCoverage reached = ResizeCoverage.COVERABLE;
        for (Map.Entry<String, String> instance : instances.entrySet()) {
            InstanceEntry entry = InstanceEntry.parse(instance.getValue());
            long seen = entry.seen();
            if (seen < writeAfter) {
                continue;
            }
            if (coverage.unsureSinceInvalidated(resize, instance.getKey(), seen)) {
                return ResizeCoverage.NOT_WRITTEN;
            }
            Long since = entry.knowsHashes() || !ownKeyed
                    ? entry.since(descriptor -> live.equals(registry.liveKeyOrNull(descriptor))) : null;
            if (since == null) {
                return ResizeCoverage.NOT_WRITTEN;
            }
            if (since != 0 && since + own.journalRetention().toMillis() > now) {
                reached = ResizeCoverage.WRITTEN;
            }
        }
        return reached;
    }

    /**
     * The largest generation auto-resize decided that may answer: every instance writes to it,
     * its live bitmap is complete and came from a load that covered them, and that load began no earlier than
     * the own generation's (whose rebuild may hold rows the grown one lacks until it is loaded
     * again). Null: none.
     */
    G answeringResize(Loads<G> loads, Map<String, String> ownMeta, Map<String, String> instances,
            long writeAfter, long now) {
        List<G> resizes = loads.resizes();
        for (int i = resizes.size() - 1; i >= 0; i--) {
            G resize = resizes.get(i);
            Map<String, String> meta = loads.metas().get(resize);
            if (loads.complete().contains(resize) && coverage.covered(meta, resize) && !LoadOrder.loadedBefore(meta, ownMeta)
                    && resizeCoverage(resize, instances, writeAfter, now) != ResizeCoverage.NOT_WRITTEN) {
                // Loaded by whichever instance got there first: during a rolling change of the warmup
                // query, from the other query, which may leave out rows of ours (see firstCovered).
                GenerationCoverage.holdIfForeign(resize, meta.get(GenerationCoverage.SOURCE),
                        ownMeta.get(GenerationCoverage.SOURCE));
                return resize;
            }
        }
        return null;
    }

    /** Takes the heartbeat's generations decided after the own one, saying so when they changed. */
    void follow(List<G> resizes) {
        if (!resizes.equals(ownResizes)) {
            if (resizes.isEmpty()) {
                log.warn("Filter '{}': Redis holds no resize of generation {} any more (evicted, or lost in a failover);"
                        + " checks are answered without it, and adds reach the grown generation for the grace period",
                        own.name(), ownDescriptor);
            }
            else {
                log.info("Filter '{}': auto-resize grows generation {} into {}; this instance writes to it and switches"
                        + " once it is loaded covering every instance", own.name(), ownDescriptor,
                        GenerationDescriptor.of(resizes.get(resizes.size() - 1)));
            }
        }
        ownResizes = List.copyOf(resizes);
    }

    /**
     * Asks for a load of the largest generation decided after the own one when it is unloaded (or
     * loaded before the own generation's live bitmap, or incomplete) and a load begun now covers
     * every instance.
     */
    void loadIfDue(Loads<G> loads, Map<String, String> ownMeta, Map<String, String> instances, long writeAfter,
            long now) {
        List<G> resizes = loads.resizes();
        if (!resizes.isEmpty()) {
            G target = resizes.get(resizes.size() - 1);
            Map<String, String> targetMeta = loads.metas().get(target);
            // Lost or evicted (marker gone) counts as unloaded: nobody else reloads a generation no instance owns.
            if ((!coverage.covered(targetMeta, target) || LoadOrder.loadedBefore(targetMeta, ownMeta)
                    || !loads.complete().contains(target))
                    && resizeCoverage(target, instances, writeAfter, now) == ResizeCoverage.COVERABLE) {
                loadResized.accept(target);
            }
        }
    }
}
