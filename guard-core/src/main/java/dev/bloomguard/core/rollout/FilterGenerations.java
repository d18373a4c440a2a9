package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.HashSecrets;
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
 * <p>This class is the rollout's face and its lock. What the last heartbeat decided, and its
 * changes, is {@link RolloutState}'s; the registry in Redis is read and written by
 * {@link GenerationRegistry}; what a heartbeat writes to, by {@link WrittenGenerations}; whether a
 * bitmap holds every key, by {@link GenerationCoverage}; auto-resize's generations are followed by
 * {@link ResizeFollowing}. Their state is guarded by this object's monitor.
 */
public final class FilterGenerations<G extends Generation> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FilterGenerations.class);

    private final G own;
    private final BitmapStore store;
    private final Duration heartbeat;
    private final GenerationRegistry registry;
    private final RolloutState<G> rollout;

    /**
     * @param own the filter of this instance's configuration
     * @param keyPrefix the namespace of the filter's keys
     * @param foreignFactory builds the filter of another generation from its descriptor
     * @param loadOwn asks for a load of the own generation (returns at once)
     */
    public FilterGenerations(G own, BitmapStore store, String keyPrefix, String instanceId,
            Duration heartbeat, Duration grace, Function<String, G> foreignFactory, Runnable loadOwn) {
        if (grace.compareTo(heartbeat.multipliedBy(4)) < 0) {
            throw new IllegalArgumentException("the rollout grace period (" + grace + ") must be at least four heartbeat"
                    + " intervals (" + heartbeat + ")");
        }
        this.own = own;
        this.store = store;
        this.heartbeat = heartbeat;
        this.registry = new GenerationRegistry(own, GenerationDescriptor.of(own), store, keyPrefix, instanceId,
                heartbeat, grace);
        this.rollout = new RolloutState<>(this, own, registry, store, keyPrefix, instanceId, heartbeat, grace,
                foreignFactory, loadOwn);
    }

    public Duration heartbeatInterval() {
        return heartbeat;
    }

    /**
     * The filter that answers checks now: the own one, another generation's, or null (answer
     * not ready) before the first heartbeat or while no generation is known to hold every key.
     */
    public G answering() {
        return rollout.answering();
    }

    /**
     * Called when a heartbeat failed. Once the last success is older than the grace period less two
     * heartbeats, the others may have stopped counting this instance as a writer: it stops
     * answering until a heartbeat gets through (decided here, off the checks' path, which reads no
     * clock).
     */
    public synchronized void heartbeatFailed() {
        rollout.heartbeatFailed();
    }

    /**
     * Adds {@code keys} to every other generation written to; the own one is the caller's.
     *
     * @throws BitmapStoreException when Redis fails, or before the first heartbeat
     */
    public void addToOthers(Collection<?> keys) {
        // Every generation gets its try: one that failed does not keep the keys from the next.
        BitmapStoreException failed = null;
        for (G other : rollout.written()) {
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
        List<G> others;
        try {
            others = rollout.written();
        }
        catch (BitmapStoreException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<?>[] adds = others.stream().map(other -> other.addAllAsync(keys))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(adds);
    }

    /** The other generations this instance writes to as of its last heartbeat; none before the first. */
    public List<G> others() {
        return rollout.others();
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
        for (G other : rollout.others()) {
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
        return rollout.ownCoverable();
    }

    /**
     * Called as a load of the own generation begins, before the source takes its snapshot: when
     * it began by Redis's clock (the registry's node, whose clock the registry's times come from),
     * and whether it covers every writer ({@link #ownCoverable}), read under the heartbeat's lock,
     * so that a heartbeat finding the generation left unwritten is either before both or after both.
     */
    public synchronized LoadStart loadBegins() {
        long began = registry.timeMillis();
        return new LoadStart(began, ownCoverable());
    }

    /** See {@link #loadBegins}. */
    public record LoadStart(long began, boolean covering) {
    }

    /** The registry of generations of filter {@code name}: descriptor to when last heartbeated (Redis ms). */
    public static String generationsKey(String keyPrefix, String name) {
        return FilterKeys.filterWide(keyPrefix, name, "generations");
    }

    /**
     * Registers this instance, reads its peers and decides what to write to and read from; a
     * siphash filter publishes its secret again, should Redis have lost it ({@link HashSecrets}).
     * Call it before the instance serves, then every heartbeat interval.
     *
     * @throws BitmapStoreException when Redis fails; the previous decision stands
     */
    public synchronized void heartbeat() {
        rollout.heartbeat();
    }

    /**
     * Called with a generation auto-resize decided after the own one, at a heartbeat that finds
     * it unloaded (or loaded before the own generation's live bitmap) and every instance writing
     * to it long enough that a load begun now covers them: load it from the own source (at once,
     * off the calling thread). The next heartbeat asks again if it is still not loaded.
     */
    public void onResizedToLoad(Consumer<G> listener) {
        rollout.onResizedToLoad(listener);
    }

    /**
     * The generation auto-resize grew this filter into, when it answers the checks now (a larger
     * geometry than the own one, loaded covering every instance).
     */
    public Optional<G> answeringResized() {
        return rollout.answeringResized();
    }

    /**
     * Called as a load of the own generation begins. One that does not cover every writer
     * (see {@link #ownCoverable}) would swap in a bitmap that lacks other instances' adds: from
     * now until the next heartbeat after it ends, checks are answered by another covered
     * generation, or not at all, rather than by the own one.
     */
    public synchronized void loadStarting(boolean covering) {
        rollout.loadStarting(covering);
    }

    /**
     * True when this instance found its own generation left unwritten after a load that began at
     * {@code began} (Redis ms): that load may lack adds made meanwhile, and must not count as
     * covering every writer.
     */
    public synchronized boolean ownInvalidatedSince(long began) {
        return rollout.ownInvalidatedSince(began);
    }

    /**
     * Called as a load of the own generation ends: one that swapped in a bitmap covering every
     * writer answers from now on; otherwise the next heartbeat decides again.
     */
    public synchronized void loadEnded(boolean swappedCovering) {
        rollout.loadEnded(swappedCovering);
    }

    /**
     * Called when a check found nothing to answer from (at most one call at a time, and one per
     * {@code RECONSIDER_EVERY}): another instance may have loaded the own generation since the
     * last heartbeat, as when this one waited for that instance's warmup. Takes this object's lock
     * once it looks.
     */
    public void reconsider() {
        rollout.reconsider();
    }

    /** Cheap: whether {@link #reconsider} would look now, so that callers need not hand it a thread for nothing. */
    public boolean reconsiderDue() {
        return rollout.reconsiderDue();
    }

    /**
     * True when the own generation had no metadata at the last look: never loaded, or lost. Its
     * load is then the not-ready path's to start; one loaded without covering every writer is
     * reloaded by the heartbeat once it can cover them.
     */
    public boolean ownUnloaded() {
        return rollout.ownUnloaded();
    }

    /** Takes this instance out of the registry, so that the generations it wrote to need not wait for it. */
    @Override
    public void close() {
        registry.leave();
    }
}
