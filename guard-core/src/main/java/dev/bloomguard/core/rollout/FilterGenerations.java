package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * The generations of one filter that live side by side during a rolling change of its
 * configuration. A change of {@code expected-insertions}, {@code fpp}, shards, key type or hash
 * (murmur3, or siphash under a secret) gives the filter other Redis keys (a new generation); old
 * and new instances then run at once, and each would block the keys the other adds.
 *
 * <p>Each instance heartbeats into a registry in Redis: its own generation, and the generations
 * it writes to, each with the time it began to (Redis's clock, so instances' clocks do not
 * matter). From that:
 * <ul>
 * <li><b>Writes</b> go to the instance's own generation and to every generation some instance
 * heartbeated within the grace period.
 * <li><b>Checks</b> are answered by the own generation once it is <em>covered</em>: its live
 * bitmap came from a load that began when every instance of the grace period wrote to it, since
 * its start or for at least the journal's retention (so no open transaction's add missed it).
 * Until then, by a covered generation of another configuration that is still written to
 * (heartbeated within the grace period less two heartbeats, so that no instance stops writing to
 * a generation that another still reads), whose "absent" blocks only when its bitmap was loaded
 * from the source the own generation's was (the warmup query may change in the same deploy);
 * failing both, the filter answers not ready (bypass).
 * <li>Once its own generation is coverable, the instance asks for a load of it.
 * <li>A generation nobody heartbeated for the grace period and one heartbeat is deleted. One that
 * an instance heartbeats again before that, while others ran on, was left unwritten: it is
 * recorded so in Redis by that heartbeat, and answers on no instance until loaded again.
 * <li>An instance that stops writing to a generation first says so in the registry.
 * <li>Auto-resize: the generations a {@link FilterResize} decision grows the own one into are
 * heartbeated too (so every instance, of any release, writes to them), loaded once coverable, and
 * answer once loaded after the own generation's last load.
 * </ul>
 * Before its first heartbeat an instance knows no peers: its checks bypass and its adds fail
 * (to be retried), rather than skip a generation another instance reads.
 *
 * <p>Size: the registry's reading (heartbeat), the decision what to read and write, generations
 * left unwritten, auto-resize's generations, and the deletion of unused generations. The names of
 * generations ({@link GenerationDescriptor}), an instance's registry entry ({@code InstanceEntry})
 * and the order of loads ({@link LoadOrder}) have their own classes; the rest is still one class, over 300 lines, so that the rules of one rollout read
 * in one place until issue 15 gives the resize following and the deletion theirs.
 */
public final class FilterGenerations implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FilterGenerations.class);

    private final RedisBloomFilter own;
    private final String ownDescriptor;
    /** True when the own generation is hashed with a keyed hash, which releases before keyed hashing cannot write. */
    private final boolean ownKeyed;
    private final BitmapStore store;
    private final String keyPrefix;
    private final String instanceId;
    private final String instancesKey;
    private final String generationsKey;
    private final Duration heartbeat;
    private final Duration grace;
    private final Function<String, RedisBloomFilter> foreignFactory;
    private final Runnable loadOwn;
    private final Map<String, RedisBloomFilter> foreign = new HashMap<>();
    /** Generations this instance writes to, with when it began (0: since it started). */
    private final Map<String, Long> writingSince = new LinkedHashMap<>();
    private volatile State state;
    /** True while a load of the own generation that does not cover every writer runs. */
    private volatile boolean ownHeldBack;
    /** Generations auto-resize decided ({@link FilterResize}) that no heartbeat names, by descriptor. */
    private final Map<String, RedisBloomFilter> resized = new HashMap<>();
    /** When (Redis ms) each generation written to as a resize was last found in a decision. */
    private final Map<String, Long> resizeSeen = new HashMap<>();
    /** The generations decided after the own one, in order, as of the last heartbeat; see {@link #onResizedToLoad}. */
    private volatile List<RedisBloomFilter> ownResizes = List.of();
    private volatile Consumer<RedisBloomFilter> loadResized = filter -> { };
    /**
     * Generations some instance found left unwritten ({@link #leftUnwritten}), by live
     * key, with when (Redis ms), as of the last heartbeat: a bitmap whose load began before counts
     * as not covered. Kept in Redis ({@code invalidatedKey}), so that every instance, and this
     * one after a restart, knows.
     */
    private volatile Map<String, Long> invalidatedAt = Map.of();
    private final String invalidatedKey;

    /**
     * What the last heartbeat found; null before the first.
     *
     * @param readable other generations that may answer, if covered
     */
    private record State(RedisBloomFilter answering, List<RedisBloomFilter> alsoWritten,
            List<RedisBloomFilter> readable) {
    }

    /**
     * @param own the filter of this instance's configuration
     * @param keyPrefix the namespace of the filter's keys
     * @param foreignFactory builds the filter of another generation from its descriptor
     * @param loadOwn asks for a load of the own generation (returns at once)
     */
    public FilterGenerations(RedisBloomFilter own, BitmapStore store, String keyPrefix, String instanceId,
            Duration heartbeat, Duration grace, Function<String, RedisBloomFilter> foreignFactory, Runnable loadOwn) {
        if (grace.compareTo(heartbeat.multipliedBy(4)) < 0) {
            throw new IllegalArgumentException("the rollout grace period (" + grace + ") must be at least four heartbeat"
                    + " intervals (" + heartbeat + ")");
        }
        this.own = own;
        this.ownDescriptor = GenerationDescriptor.of(own);
        this.ownKeyed = own.hash().algorithm() != KeyHash.Algorithm.MURMUR3;
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.instanceId = instanceId;
        this.instancesKey = keyPrefix + ":{" + own.name() + "}:instances";
        this.generationsKey = generationsKey(keyPrefix, own.name());
        this.invalidatedKey = keyPrefix + ":{" + own.name() + "}:invalidated";
        this.heartbeat = heartbeat;
        this.grace = grace;
        this.foreignFactory = foreignFactory;
        this.loadOwn = loadOwn;
    }

    public Duration heartbeatInterval() {
        return heartbeat;
    }

    /**
     * The filter that answers checks now: the own one, another generation's, or null (answer
     * not ready) before the first heartbeat or while no generation is known to hold every key.
     */
    public RedisBloomFilter answering() {
        State current = state;
        return current == null ? null : current.answering();
    }

    /**
     * Called when a heartbeat failed. Once the last success is older than the grace period less two
     * heartbeats, the others may have stopped counting this instance as a writer: it stops
     * answering until a heartbeat gets through (decided here, off the checks' path, which reads no
     * clock).
     */
    public synchronized void heartbeatFailed() {
        State current = state;
        if (current != null && current.answering() != null && stale()) {
            state = new State(null, current.alsoWritten(), current.readable());
        }
    }

    /**
     * True when this instance's last successful heartbeat is so old that the others may have
     * stopped counting it as a writer (or started writing elsewhere): it then neither answers
     * nor adds, until a heartbeat gets through again.
     */
    private boolean stale() {
        return System.nanoTime() - lastHeartbeat > grace.minus(heartbeat.multipliedBy(2)).toNanos();
    }

    private volatile long lastHeartbeat;

    /**
     * Adds {@code keys} to every other generation written to; the own one is the caller's.
     *
     * @throws BitmapStoreException when Redis fails, or before the first heartbeat
     */
    public void addToOthers(Collection<?> keys) {
        // Every generation gets its try: one that failed does not keep the keys from the next.
        BitmapStoreException failed = null;
        for (RedisBloomFilter other : written()) {
            try {
                other.addAll(keys);
            }
            catch (BitmapStoreException ex) {
                failed = failed == null ? ex : failed;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** {@link #addToOthers} without blocking the calling thread. */
    public CompletableFuture<Void> addToOthersAsync(Collection<?> keys) {
        List<RedisBloomFilter> others;
        try {
            others = written();
        }
        catch (BitmapStoreException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<?>[] adds = others.stream().map(other -> other.addAllAsync(keys))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(adds);
    }

    /** The other generations this instance writes to as of its last heartbeat; none before the first. */
    public List<RedisBloomFilter> others() {
        State current = state;
        return current == null ? List.of() : current.alsoWritten();
    }

    private List<RedisBloomFilter> written() {
        State current = state;
        if (current == null || stale()) {
            throw new BitmapStoreException("filter '" + own.name() + "' has not read its rollout registry"
                    + (current == null ? " yet" : " for longer than the grace period less two heartbeats")
                    + ": it does not know which generations to write to", null);
        }
        return current.alsoWritten();
    }

    /**
     * Makes every other generation this instance writes to not ready (clears its ready marker),
     * so that the instances answering from it bypass it and reload it from their own source. For
     * adds this instance had to give up, or that Redis lost: the own generation is reloaded by
     * the caller, and the others would otherwise lack the keys for good.
     *
     * @throws BitmapStoreException when Redis fails; the caller tries again with its next attempt
     */
    public void invalidateOthers() {
        State current = state;
        if (current == null) {
            return;
        }
        for (RedisBloomFilter other : current.alsoWritten()) {
            for (int shard = 0; shard < other.geometry().shards(); shard++) {
                store.clearBit(other.keys().live(shard), other.geometry().markerOffset());
            }
            log.warn("Filter '{}': generation {} made not ready, as it may lack adds (given up, or lost by Redis);"
                    + " its instances reload it",
                    own.name(), other.keys().live());
        }
    }

    /**
     * True when every instance of the grace period writes to the own generation, since its start
     * or for at least the journal's retention: a load that begins now covers it.
     */
    public boolean ownCoverable() {
        Boolean coverable = lastCoverable;
        return coverable != null && coverable && !stale();
    }

    /**
     * Called as a load of the own generation begins, before the source takes its snapshot: when
     * it began by Redis's clock (the registry's node, whose clock the registry's times come from),
     * and whether it covers every writer ({@link #ownCoverable}), read under the heartbeat's lock,
     * so that a heartbeat finding the generation left unwritten is either before both or after both.
     */
    public synchronized LoadStart loadBegins() {
        long began = store.timeMillis(generationsKey);
        return new LoadStart(began, ownCoverable());
    }

    /** See {@link #loadBegins}. */
    public record LoadStart(long began, boolean covering) {
    }

    /** The registry of generations of filter {@code name}: descriptor to when last heartbeated (Redis ms). */
    public static String generationsKey(String keyPrefix, String name) {
        return keyPrefix + ":{" + name + "}:generations";
    }

    private volatile Boolean lastCoverable;

    /**
     * Registers this instance, reads its peers and decides what to write to and read from; a
     * siphash filter publishes its secret again, should Redis have lost it ({@link HashSecrets}).
     * Call it before the instance serves, then every heartbeat interval.
     *
     * @throws BitmapStoreException when Redis fails; the previous decision stands
     */
    public synchronized void heartbeat() {
        boolean first = state == null;
        long sent = System.nanoTime();
        List<String> ownChain = FilterResize.chain(store, keyPrefix, own.name(), ownDescriptor);
        // The own generation and those auto-resize grows it into: heartbeated, so that every instance
        // (of any release, of any configuration) writes to them, and stops only once none runs them.
        List<String> heartbeated = new ArrayList<>(List.of(ownDescriptor));
        ownChain.stream().filter(descriptor -> !heartbeated.contains(descriptor)).forEach(heartbeated::add);
        writingSince.putIfAbsent(ownDescriptor, 0L);
        List<String> leftUnwritten = leftUnwritten(heartbeated);
        BitmapStore.Heartbeat beat = beat(heartbeated, writingSince.keySet(), leftUnwritten);
        clearMarkers(leftUnwritten);
        if (ownKeyed) {
            HashSecrets.publish(store, keyPrefix, own.name(), own.hash());
        }
        Written decision = written(beat, first, ownChain);
        // Claim first, then stop: the registry must say this instance no longer writes to a
        // generation before it stops, or an instance returning to that generation meanwhile
        // would count it as a writer and load a bitmap that misses its adds. Read again after
        // the claim: one heartbeated meanwhile is written to on, and one found stale only now is
        // claimed in turn.
        Set<String> claimedStopped = new HashSet<>();
        for (int round = 0; !claimedStopped.containsAll(stopping(decision)); round++) {
            if (round == MAX_CLAIMS) {
                throw new BitmapStoreException("filter '" + own.name() + "': the generations to write to kept changing"
                        + " while this instance claimed which it stops writing to; the previous decision stands", null);
            }
            claimedStopped.addAll(stopping(decision));
            Set<String> claimed = new LinkedHashSet<>(writingSince.keySet());
            claimed.removeAll(claimedStopped);
            beat = beat(heartbeated, claimed, List.of());
            decision = written(beat, first, ownChain);
        }
        long now = beat.now();
        long writeAfter = now - grace.toMillis();
        Map<String, Long> invalidated = new HashMap<>();
        beat.invalidated().forEach((live, at) -> invalidated.put(live, Long.parseLong(at)));
        invalidatedAt = Map.copyOf(invalidated);
        List<RedisBloomFilter> alsoWritten = decision.alsoWritten();
        Map<String, RedisBloomFilter> readable = decision.readable();
        List<RedisBloomFilter> resizes = decision.resizes();
        writingSince.keySet().removeIf(descriptor -> !descriptor.equals(ownDescriptor)
                && alsoWritten.stream().noneMatch(filter -> GenerationDescriptor.of(filter).equals(descriptor)));

        boolean coverable = true;
        for (Map.Entry<String, String> instance : beat.instances().entrySet()) {
            InstanceEntry entry = InstanceEntry.parse(instance.getValue());
            long seen = entry.seen();
            if (seen < writeAfter - heartbeat.toMillis()) {
                store.hashDelete(instancesKey, instance.getKey());
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
        lastCoverable = coverable;

        Map<String, String> ownMeta = store.hashGetAll(own.keys().meta());
        ownUnloaded = ownMeta.isEmpty();
        Map<RedisBloomFilter, Map<String, String>> resizeMetas = new HashMap<>();
        Set<RedisBloomFilter> resizesComplete = new HashSet<>();
        for (RedisBloomFilter resize : resizes) {
            resizeMetas.put(resize, store.hashGetAll(resize.keys().meta()));
            if (resize.isComplete().orElse(false)) {
                resizesComplete.add(resize);
            }
        }
        RedisBloomFilter resizedAnswering = answeringResize(resizes, resizeMetas, resizesComplete, ownMeta,
                beat.instances(), writeAfter, now);
        RedisBloomFilter answering = resizedAnswering != null ? resizedAnswering
                : !ownHeldBack && covered(ownMeta, own) ? own : firstCovered(readable.values(), ownMeta.get(SOURCE));
        State previous = state;
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
        state = new State(answering, List.copyOf(alsoWritten), List.copyOf(readable.values()));
        lastHeartbeat = sent;
        if (previous != null && previous.answering() != answering) {
            log.info("Filter '{}': checks are now answered by {}", own.name(),
                    answering == null ? "nothing (they bypass) until a generation holds every key"
                            : answering == own ? "its own generation " + ownDescriptor
                                    : answering == resizedAnswering ? "generation " + GenerationDescriptor.of(answering)
                                            + ", which auto-resize grew it into"
                                    : "generation " + GenerationDescriptor.of(answering) + " of another configuration, until its"
                                            + " own is loaded");
        }
        // Loaded while another instance did not write to it: load it again now that all do. (A
        // generation never loaded, or lost, is loaded by the not-ready path of its checks.)
        if (!ownMeta.isEmpty() && !covered(ownMeta, own) && coverable) {
            loadOwn.run();
        }
        if (!resizes.isEmpty()) {
            RedisBloomFilter target = resizes.get(resizes.size() - 1);
            Map<String, String> targetMeta = resizeMetas.get(target);
            // Lost or evicted (marker gone) counts as unloaded: nobody else reloads a generation no instance owns.
            if ((!covered(targetMeta, target) || LoadOrder.loadedBefore(targetMeta, ownMeta) || !resizesComplete.contains(target))
                    && resizeCoverage(target, beat.instances(), writeAfter, now) == ResizeCoverage.COVERABLE) {
                loadResized.accept(target);
            }
        }
    }

    /**
     * Called with a generation auto-resize decided after the own one, at a heartbeat that finds
     * it unloaded (or loaded before the own generation's live bitmap) and every instance writing
     * to it long enough that a load begun now covers them: load it from the own source (at once,
     * off the calling thread). The next heartbeat asks again if it is still not loaded.
     */
    public void onResizedToLoad(Consumer<RedisBloomFilter> listener) {
        this.loadResized = listener;
    }

    /**
     * The generation auto-resize grew this filter into, when it answers the checks now (a larger
     * geometry than the own one, loaded covering every instance).
     */
    public Optional<RedisBloomFilter> answeringResized() {
        RedisBloomFilter answering = answering();
        return answering != null && answering != own && ownResizes.contains(answering) ? Optional.of(answering)
                : Optional.empty();
    }

    /**
     * Auto-resize: the generations decided after the own one ({@code ownChain}) and after each
     * other generation written to are written to as well, from now on (from the start at the
     * first heartbeat, before which this instance adds nothing), whether or not an instance runs
     * them as its own; so every instance adds to a grown generation before any loads it. One whose
     * decision is gone (evicted, lost in a failover) is still written to for the grace period: an
     * instance that has not heartbeated since may still answer from it.
     *
     * @return the filters of {@code ownChain}, in order
     */
    private List<RedisBloomFilter> writeResizes(List<String> ownChain, List<RedisBloomFilter> alsoWritten,
            boolean first, long now) {
        Set<String> decided = new LinkedHashSet<>(ownChain);
        for (RedisBloomFilter other : List.copyOf(alsoWritten)) {
            decided.addAll(FilterResize.chain(store, keyPrefix, own.name(), GenerationDescriptor.of(other)));
        }
        decided.forEach(descriptor -> resizeSeen.put(descriptor, now));
        resizeSeen.values().removeIf(seen -> seen < now - grace.toMillis());
        decided.addAll(resizeSeen.keySet());
        resized.keySet().retainAll(decided);
        Set<String> writtenKeys = new HashSet<>();
        writtenKeys.add(own.keys().live());
        alsoWritten.forEach(filter -> writtenKeys.add(filter.keys().live()));
        List<RedisBloomFilter> ownResized = new ArrayList<>();
        for (String descriptor : decided) {
            String live = liveKey(descriptor);
            if (live.equals(own.keys().live())) {
                continue;
            }
            RedisBloomFilter filter;
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

    /** How far the instances of the grace period write to a generation auto-resize decided. */
    private enum ResizeCoverage {
        /** Some instance does not write to it (it has not heartbeated since it learnt of it, or knows no resizes). */
        NOT_WRITTEN,
        /** Every instance writes to it, some for less than the journal's retention. */
        WRITTEN,
        /** Every instance writes to it since its start or for at least the journal's retention: a load now covers them. */
        COVERABLE
    }

    private ResizeCoverage resizeCoverage(RedisBloomFilter resize, Map<String, String> instances, long writeAfter,
            long now) {
        String live = resize.keys().live();
        ResizeCoverage coverage = ResizeCoverage.COVERABLE;
        for (Map.Entry<String, String> instance : instances.entrySet()) {
            InstanceEntry entry = InstanceEntry.parse(instance.getValue());
            long seen = entry.seen();
            if (seen < writeAfter) {
                continue;
            }
            if (unsureSinceInvalidated(resize, instance.getKey(), seen)) {
                return ResizeCoverage.NOT_WRITTEN;
            }
            Long since = entry.knowsHashes() || !ownKeyed
                    ? entry.since(descriptor -> live.equals(liveKeyOrNull(descriptor))) : null;
            if (since == null) {
                return ResizeCoverage.NOT_WRITTEN;
            }
            if (since != 0 && since + own.journalRetention().toMillis() > now) {
                coverage = ResizeCoverage.WRITTEN;
            }
        }
        return coverage;
    }

    /**
     * The largest generation auto-resize decided that may answer: every instance writes to it,
     * its live bitmap is complete and came from a load that covered them, and that load began no earlier than
     * the own generation's (whose rebuild may hold rows the grown one lacks until it is loaded
     * again). Null: none.
     */
    private RedisBloomFilter answeringResize(List<RedisBloomFilter> resizes,
            Map<RedisBloomFilter, Map<String, String>> metas, Set<RedisBloomFilter> complete,
            Map<String, String> ownMeta, Map<String, String> instances, long writeAfter, long now) {
        for (int i = resizes.size() - 1; i >= 0; i--) {
            RedisBloomFilter resize = resizes.get(i);
            Map<String, String> meta = metas.get(resize);
            if (complete.contains(resize) && covered(meta, resize) && !LoadOrder.loadedBefore(meta, ownMeta)
                    && resizeCoverage(resize, instances, writeAfter, now) != ResizeCoverage.NOT_WRITTEN) {
                // Loaded by whichever instance got there first: during a rolling change of the warmup
                // query, from the other query, which may leave out rows of ours (see firstCovered).
                resize.setBlockingSuspended(!Objects.equals(meta.get(SOURCE), ownMeta.get(SOURCE)));
                return resize;
            }
        }
        return null;
    }

    private String liveKeyOrNull(String descriptor) {
        try {
            return liveKey(descriptor);
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    /** The heartbeat script: registers {@code heartbeated}, claims to write to {@code writes}, reads the registry. */
    private BitmapStore.Heartbeat beat(List<String> heartbeated, Collection<String> writes, List<String> leftUnwritten) {
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
    private List<String> leftUnwritten(List<String> heartbeated) {
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
    private void clearMarkers(List<String> descriptors) {
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
     * What a heartbeat decided to write to and read from.
     *
     * @param resizes the generations auto-resize decided after the own one, in order
     */
    private record Written(List<RedisBloomFilter> alsoWritten, Map<String, RedisBloomFilter> readable,
            List<RedisBloomFilter> resizes) {
    }

    /** Generations written to until now whose keys this heartbeat writes to no more. */
    private Set<String> stopping(Written written) {
        Set<String> lives = new HashSet<>();
        lives.add(own.keys().live());
        written.alsoWritten().forEach(filter -> lives.add(filter.keys().live()));
        Set<String> stopping = new LinkedHashSet<>();
        for (String descriptor : writingSince.keySet()) {
            if (!lives.contains(liveKeyOrNull(descriptor))) {
                stopping.add(descriptor);
            }
        }
        return stopping;
    }

    private Written written(BitmapStore.Heartbeat beat, boolean first, List<String> ownChain) {
        long now = beat.now();
        foreign.keySet().retainAll(beat.generations().keySet());
        long writeAfter = now - grace.toMillis();
        long readAfter = now - grace.toMillis() + 2 * heartbeat.toMillis();
        List<RedisBloomFilter> alsoWritten = new ArrayList<>();
        Map<String, RedisBloomFilter> readable = new TreeMap<>();
        // Descriptors that differ only in a key type stored like no key type (integer, uuid, text,
        // bytes) name the same keys: one generation, judged by the freshest of them.
        Map<String, Long> seenByKeys = new HashMap<>();
        Map<String, String> descriptorByKeys = new HashMap<>();
        for (Map.Entry<String, String> generation : beat.generations().entrySet()) {
            String live = liveKey(generation.getKey());
            long seen = Long.parseLong(generation.getValue());
            if (seenByKeys.merge(live, seen, Math::max) == seen) {
                descriptorByKeys.put(live, generation.getKey());
            }
        }
        for (Map.Entry<String, String> generation : beat.generations().entrySet()) {
            String descriptor = generation.getKey();
            String live = liveKey(descriptor);
            if (live.equals(own.keys().live())) {
                continue;
            }
            long seen = seenByKeys.get(live);
            if (seen < writeAfter - heartbeat.toMillis()) {
                if (!ownChain.contains(descriptor)) { // a generation this one grows into is not unused
                    delete(descriptor, descriptorByKeys.get(live).equals(descriptor));
                }
                continue;
            }
            if (seen >= writeAfter && descriptorByKeys.get(live).equals(descriptor)) {
                RedisBloomFilter filter = foreign.computeIfAbsent(descriptor, foreignFactory);
                alsoWritten.add(filter);
                writingSince.putIfAbsent(descriptor, first ? 0L : now);
                // Only a generation whose keys compare as ours may answer for us: one of another key
                // type hashed "ALICE" and "alice" (or "AB12" and "AB12    ") apart.
                if (seen >= readAfter && Objects.equals(GenerationDescriptor.keyType(descriptor), own.keyType().orElse(null))) {
                    readable.put(descriptor, filter);
                }
            }
        }
        List<RedisBloomFilter> resizes = writeResizes(ownChain, alsoWritten, first, now);
        return new Written(alsoWritten, readable, resizes);
    }

    /** The field of a live bitmap's metadata naming the source it was loaded from, if its loader gave one. */
    private static final String SOURCE = "source";

    /**
     * The first of {@code candidates} whose live bitmap covers every writer, or null; it answers
     * "absent" only when loaded from the source the own generation's bitmap was ({@code ownSource}).
     */
    private RedisBloomFilter firstCovered(Collection<RedisBloomFilter> candidates, String ownSource) {
        for (RedisBloomFilter candidate : candidates) {
            Map<String, String> meta = store.hashGetAll(candidate.keys().meta());
            if (covered(meta, candidate)) {
                // A rolling change of geometry and warmup query at once: the other generation holds
                // the rows of its instances' query, which may leave out some of ours, and our
                // warmer lifts our suspension once our own generation is loaded from our query,
                // whatever generation answers. Suspended here, its "absent" lets the key through
                // until our own generation answers (or both bitmaps come from one source).
                candidate.setBlockingSuspended(!Objects.equals(meta.get(SOURCE), ownSource));
                return candidate;
            }
        }
        return null;
    }

    /**
     * Called as a load of the own generation begins. One that does not cover every writer
     * (see {@link #ownCoverable}) would swap in a bitmap that lacks other instances' adds: from
     * now until the next heartbeat after it ends, checks are answered by another covered
     * generation, or not at all, rather than by the own one.
     */
    public synchronized void loadStarting(boolean covering) {
        if (covering) {
            return;
        }
        ownHeldBack = true;
        State current = state;
        if (current != null && current.answering() == own) {
            state = new State(firstCovered(current.readable(), store.hashGetAll(own.keys().meta()).get(SOURCE)),
                    current.alsoWritten(), current.readable());
        }
    }

    /**
     * Called as a load of the own generation ends: one that swapped in a bitmap covering every
     * writer answers from now on; otherwise the next heartbeat decides again.
     */
    /**
     * True when this instance found its own generation left unwritten after a load that began at
     * {@code began} (Redis ms): that load may lack adds made meanwhile, and must not count as
     * covering every writer.
     */
    public synchronized boolean ownInvalidatedSince(long began) {
        Long invalidated = invalidatedAt.get(own.keys().live());
        return invalidated != null && began <= invalidated;
    }

    public synchronized void loadEnded(boolean swappedCovering) {
        ownHeldBack = false;
        State current = state;
        if (swappedCovering && current != null && !stale()) {
            state = new State(own, current.alsoWritten(), current.readable());
        }
    }

    /**
     * True when a live bitmap, by its metadata, came from a load that covered every writer. A bitmap
     * loaded by a release before generations were tracked (metadata without the field) was the
     * only generation then; one never loaded (no metadata) holds nothing.
     */
    private boolean covered(Map<String, String> meta, RedisBloomFilter generation) {
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
    private boolean unsureSinceInvalidated(RedisBloomFilter generation, String instance, long seen) {
        Long invalidated = invalidatedAt.get(generation.keys().live());
        return invalidated != null && !instance.equals(instanceId) && seen <= invalidated;
    }

    /**
     * Called when a check found nothing to answer from (at most one call at a time, and one per
     * {@code RECONSIDER_EVERY}): another instance may have loaded the own generation since the
     * last heartbeat, as when this one waited for that instance's warmup.
     */
    public void reconsider() {
        if (!reconsiderDue()) {
            return;
        }
        long now = System.nanoTime();
        long last = lastReconsidered.get();
        if (now - last < RECONSIDER_EVERY.toNanos() || !lastReconsidered.compareAndSet(last, now)) {
            return;
        }
        synchronized (this) {
            State current = state;
            if (current != null && current.answering() == null && !ownHeldBack && !stale()) {
                Map<String, String> ownMeta = store.hashGetAll(own.keys().meta());
                ownUnloaded = ownMeta.isEmpty();
                if (covered(ownMeta, own)) {
                    state = new State(own, current.alsoWritten(), current.readable());
                }
            }
        }
    }

    /** Cheap: whether {@link #reconsider} would look now, so that callers need not hand it a thread for nothing. */
    public boolean reconsiderDue() {
        return System.nanoTime() - lastReconsidered.get() >= RECONSIDER_EVERY.toNanos();
    }

    /**
     * True when the own generation had no metadata at the last look: never loaded, or lost. Its
     * load is then the not-ready path's to start; one loaded without covering every writer is
     * reloaded by the heartbeat once it can cover them.
     */
    public boolean ownUnloaded() {
        return ownUnloaded;
    }

    private volatile boolean ownUnloaded = true;

    private static final Duration RECONSIDER_EVERY = Duration.ofMillis(100);
    /** Claims of generations stopped written to in one heartbeat, before it gives up (the registry kept changing). */
    private static final int MAX_CLAIMS = 3;
    private final java.util.concurrent.atomic.AtomicLong lastReconsidered = new java.util.concurrent.atomic.AtomicLong(
            System.nanoTime() - RECONSIDER_EVERY.toNanos());

    private String liveKey(String descriptor) {
        return keys(descriptor).live();
    }

    private FilterKeys keys(String descriptor) {
        return FilterKeys.of(keyPrefix, own.name(), GenerationDescriptor.geometry(descriptor), GenerationDescriptor.keyType(descriptor), GenerationDescriptor.hashId(descriptor));
    }

    /** Forgets a generation nobody uses; deletes its keys when {@code withKeys} (once per set of keys). */
    private void delete(String descriptor, boolean withKeys) {
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
        foreign.remove(descriptor);
    }

    /** Takes this instance out of the registry, so that the generations it wrote to need not wait for it. */
    @Override
    public void close() {
        try {
            store.hashDelete(instancesKey, instanceId);
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not leave the rollout registry: {}", own.name(), ex.getMessage());
        }
    }
}
