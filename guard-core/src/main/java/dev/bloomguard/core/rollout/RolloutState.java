package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * What {@link FilterGenerations} decided at its last heartbeat, and every change of it: the
 * generation that answers checks, the other generations written to, whether a load of the own
 * generation begun now covers every writer; changed by the heartbeat itself, a failed heartbeat,
 * a load of the own generation that does not cover every writer, and a reconsideration when
 * nothing answers.
 *
 * <p>The one thing easy to get wrong: the state is read without a lock (on every check and add),
 * so it is volatile and replaced whole; every change of it is made under {@link FilterGenerations}'s
 * lock, which its callers hold ({@link #reconsider} takes it itself, as {@code lock}).
 */
final class RolloutState<G extends Generation> {

    private static final Logger log = LoggerFactory.getLogger(FilterGenerations.class);

    private static final Duration RECONSIDER_EVERY = Duration.ofMillis(100);

    private final Object lock;
    private final G own;
    private final String ownDescriptor;
    /**
     * True when the own generation is hashed with a keyed hash: a heartbeat without
     * {@code #hashes} does not count as writing it.
     */
    private final boolean ownKeyed;
    private final BitmapStore store;
    private final String keyPrefix;
    private final Duration heartbeat;
    private final Duration grace;
    private final Runnable loadOwn;
    private final GenerationRegistry registry;
    private final GenerationCoverage coverage;
    private final ResizeFollowing<G> resizes;
    private final WrittenGenerations<G> writes;
    private volatile State<G> state;
    /** True while a load of the own generation that does not cover every writer runs. */
    private volatile boolean ownHeldBack;
    private volatile long lastHeartbeat;
    private volatile Boolean lastCoverable;
    private volatile boolean ownUnloaded = true;
    private final AtomicLong lastReconsidered = new AtomicLong(System.nanoTime() - RECONSIDER_EVERY.toNanos());

    /**
     * What the last heartbeat found; null before the first.
     *
     * @param readable other generations that may answer, if covered
     */
    private record State<G extends Generation>(G answering, List<G> alsoWritten,
            List<G> readable) {
    }

    /** @param lock the monitor of the {@link FilterGenerations} this is the state of */
    RolloutState(Object lock, G own, GenerationRegistry registry, BitmapStore store, String keyPrefix,
            String instanceId, Duration heartbeat, Duration grace, Function<String, G> foreignFactory,
            Runnable loadOwn) {
        this.lock = lock;
        this.own = own;
        this.ownDescriptor = GenerationDescriptor.of(own);
        this.ownKeyed = own.hash().algorithm() != KeyHash.Algorithm.MURMUR3;
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.heartbeat = heartbeat;
        this.grace = grace;
        this.loadOwn = loadOwn;
        this.registry = registry;
        this.coverage = new GenerationCoverage(own, ownDescriptor, ownKeyed, store, instanceId, heartbeat, registry);
        this.resizes = new ResizeFollowing<>(own, ownDescriptor, ownKeyed, store, keyPrefix, grace, foreignFactory,
                registry, coverage);
        this.writes = new WrittenGenerations<>(own, ownDescriptor, heartbeat, grace, foreignFactory, registry, resizes);
    }

    G answering() {
        State<G> current = state;
        return current == null ? null : current.answering();
    }

    void heartbeatFailed() {
        State<G> current = state;
        if (current != null && current.answering() != null && stale()) {
            state = new State<>(null, current.alsoWritten(), current.readable());
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

    List<G> others() {
        State<G> current = state;
        return current == null ? List.of() : current.alsoWritten();
    }

    /** The other generations to add to; see {@link FilterGenerations#addToOthers}. */
    List<G> written() {
        State<G> current = state;
        if (current == null || stale()) {
            throw new BitmapStoreException("filter '" + own.name() + "' has not read its rollout registry"
                    + (current == null ? " yet" : " for longer than the grace period less two heartbeats")
                    + ": it does not know which generations to write to", null);
        }
        return current.alsoWritten();
    }

    boolean ownCoverable() {
        Boolean coverable = lastCoverable;
        return coverable != null && coverable && !stale();
    }

    /** See {@link FilterGenerations#heartbeat}: the registry read and written, then what answers decided. */
    void heartbeat() {
        boolean first = state == null;
        long sent = System.nanoTime();
        List<String> ownChain = FilterResize.chain(store, keyPrefix, own.name(), ownDescriptor);
        // The own generation and those auto-resize grows it into: heartbeated, so that every instance
        // (of any release, of any configuration) writes to them, and stops only once none runs them.
        List<String> heartbeated = new ArrayList<>(List.of(ownDescriptor));
        ownChain.stream().filter(descriptor -> !heartbeated.contains(descriptor)).forEach(heartbeated::add);
        writes.writeOwn();
        List<String> leftUnwritten = registry.leftUnwritten(heartbeated);
        BitmapStore.Heartbeat firstBeat = writes.beat(heartbeated, leftUnwritten);
        registry.clearMarkers(leftUnwritten);
        if (ownKeyed) {
            HashSecrets.publish(store, keyPrefix, own.name(), own.hash());
        }
        WrittenGenerations.Written<G> decision = writes.decide(firstBeat, heartbeated, first, ownChain);
        BitmapStore.Heartbeat beat = decision.beat();
        long now = beat.now();
        long writeAfter = now - grace.toMillis();
        coverage.invalidated(beat.invalidated());
        writes.forgetStopped(decision);
        boolean coverable = coverage.ownCoverable(beat.instances(), writeAfter, now);
        lastCoverable = coverable;

        Map<String, String> ownMeta = store.hashGetAll(own.keys().meta());
        ownUnloaded = ownMeta.isEmpty();
        ResizeFollowing.Loads<G> resizeLoads = resizes.read(decision.resizes());
        G resizedAnswering = resizes.answeringResize(resizeLoads, ownMeta, beat.instances(), writeAfter,
                now);
        G answering = resizedAnswering != null ? resizedAnswering
                : !ownHeldBack && coverage.covered(ownMeta, own) ? own
                        : coverage.firstCovered(decision.readable().values(), ownMeta.get(GenerationCoverage.SOURCE));
        State<G> previous = state;
        resizes.follow(decision.resizes());
        state = new State<>(answering, List.copyOf(decision.alsoWritten()), List.copyOf(decision.readable().values()));
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
        if (!ownMeta.isEmpty() && !coverage.covered(ownMeta, own) && coverable) {
            loadOwn.run();
        }
        resizes.loadIfDue(resizeLoads, ownMeta, beat.instances(), writeAfter, now);
    }

    void onResizedToLoad(Consumer<G> listener) {
        resizes.onResizedToLoad(listener);
    }

    Optional<G> answeringResized() {
        G answering = answering();
        return answering != null && answering != own && resizes.ownResize(answering) ? Optional.of(answering)
                : Optional.empty();
    }

    void loadStarting(boolean covering) {
        if (covering) {
            return;
        }
        ownHeldBack = true;
        State<G> current = state;
        if (current != null && current.answering() == own) {
            state = new State<>(coverage.firstCovered(current.readable(),
                    store.hashGetAll(own.keys().meta()).get(GenerationCoverage.SOURCE)),
                    current.alsoWritten(), current.readable());
        }
    }

    boolean ownInvalidatedSince(long began) {
        return coverage.ownInvalidatedSince(began);
    }

    void loadEnded(boolean swappedCovering) {
        ownHeldBack = false;
        State<G> current = state;
        if (swappedCovering && current != null && !stale()) {
            state = new State<>(own, current.alsoWritten(), current.readable());
        }
    }

    void reconsider() {
        if (!reconsiderDue()) {
            return;
        }
        long now = System.nanoTime();
        long last = lastReconsidered.get();
        if (now - last < RECONSIDER_EVERY.toNanos() || !lastReconsidered.compareAndSet(last, now)) {
            return;
        }
        synchronized (lock) {
            State<G> current = state;
            if (current != null && current.answering() == null && !ownHeldBack && !stale()) {
                Map<String, String> ownMeta = store.hashGetAll(own.keys().meta());
                ownUnloaded = ownMeta.isEmpty();
                if (coverage.covered(ownMeta, own)) {
                    state = new State<>(own, current.alsoWritten(), current.readable());
                }
            }
        }
    }

    boolean reconsiderDue() {
        return System.nanoTime() - lastReconsidered.get() >= RECONSIDER_EVERY.toNanos();
    }

    boolean ownUnloaded() {
        return ownUnloaded;
    }
}
