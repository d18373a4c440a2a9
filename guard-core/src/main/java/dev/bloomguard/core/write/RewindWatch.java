package dev.bloomguard.core.write;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import dev.bloomguard.core.Hold;
import dev.bloomguard.core.check.Holds;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.Generation;

/**
 * Notices Redis going back in time: a restart from an older RDB or AOF file, or a failover to a
 * replica that lagged, brings the bitmap back without the adds made since, ready marker and all,
 * and those keys would be blocked for good. Each instance counts its own adds in Redis (one hash
 * field per instance and shard, incremented with each add after its bits); counts only grow, so
 * one lower than this instance confirmed (its own) or saw (another instance's, which may be gone
 * since) means Redis lost adds ({@link AddCounts}). Both {@link #verifyNotBehind} and every add of
 * the instance compare. The filter is then made not ready on every instance (the marker of each
 * shard is cleared, so every check bypasses it, and mirrors are told to drop their pages) until a
 * load swaps in a whole bitmap again: the not-ready signal schedules that load. Once one instance
 * has acted on a rewind, the others take the new counts as they are.
 */
public final class RewindWatch {

    private final FilterContext filter;
    private final AddCounts addCounts;
    private final BitmapMirror mirror;
    private final FilterEvents events;
    private final FilterGenerations<?> generations;
    private final Runnable notReady;
    private final Holds holds;
    /** Rewinds noticed; a batch sent before one does not report it again. */
    private final AtomicLong rewinds = new AtomicLong();
    /** Rewinds noticed and not acted on yet, each holding {@link Hold#REWOUND} until it is; guarded by {@code noticing}. */
    private int noticed;
    /**
     * A rewind this instance could not act on (the markers could not be cleared, or the background
     * executor refused the work): {@link Hold#REWOUND} stays held until a look at Redis finds
     * nothing left to do. Guarded by {@code noticing}.
     */
    private boolean unresolved;
    /** Whether this holds {@link Hold#REWOUND}; guarded by {@code noticing}. */
    private boolean holding;
    private final Object noticing = new Object();

    /**
     * @param mirror the local mirror, or null
     * @param generations the filter's generations, or null outside a rollout
     * @param holds this generation's reasons not to block: {@link Hold#REWOUND} from the moment a
     *     rewind is noticed until the filter was made not ready (its markers then say it)
     * @param notReady what a check that finds the filter not ready does
     */
    public RewindWatch(FilterContext filter, BitmapMirror mirror, FilterEvents events, FilterGenerations<?> generations,
            Holds holds, Runnable notReady) {
        this.filter = filter;
        this.addCounts = new AddCounts(filter.instanceId(), filter.geometry().shards());
        this.mirror = mirror;
        this.events = events;
        this.generations = generations;
        this.holds = holds;
        this.notReady = notReady;
    }

    AddCounts addCounts() {
        return addCounts;
    }

    /**
     * An add's count said Redis is behind: acts on it in the background, unless a rewind since
     * did. The filter is held at once: until the markers are cleared, the keys Redis lost have
     * clear bits under a set marker, and the background executor may be busy for a while.
     */
    void behind(String detail) {
        long epoch = rewinds.get();
        notice();
        AtomicBoolean done = new AtomicBoolean();
        try {
            filter.background().execute(() -> {
                try {
                    rewound(epoch, detail, new boolean[filter.geometry().shards()]);
                }
                finally {
                    if (done.compareAndSet(false, true)) {
                        acted();
                    }
                }
            });
        }
        catch (RuntimeException ex) {
            // Refused by the executor, or run here and failed: the next look at Redis acts on it.
            resolved(false);
            if (done.compareAndSet(false, true)) {
                acted();
            }
            filter.log().warn("Filter '{}': could not act on Redis going back in time now ({}); absent answers are"
                    + " let through until the next look at Redis does", filter.name(), ex.toString());
        }
    }

    private boolean heldWhileActing(BooleanSupplier act) {
        notice();
        try {
            return act.getAsBoolean();
        }
        finally {
            acted();
        }
    }

    private void notice() {
        synchronized (noticing) {
            noticed++;
            hold();
        }
    }

    private void acted() {
        synchronized (noticing) {
            noticed--;
            hold();
        }
    }

    /** Whether every rewind this instance noticed was acted on, by it or by another instance. */
    private void resolved(boolean resolved) {
        synchronized (noticing) {
            unresolved = !resolved;
            hold();
        }
    }

    private void hold() {
        boolean held = noticed > 0 || unresolved;
        if (held != holding) {
            holding = held;
            holds.set(Hold.REWOUND, held);
        }
    }

    /**
     * Compares every shard's add counts in Redis with what this instance confirmed and saw, and
     * those of the other generations this instance writes to (an instance of the other
     * configuration that is gone may have made adds only there).
     *
     * @return true when this instance found Redis behind and made the filter not ready
     * @throws BitmapStoreException when Redis cannot be read; try again later
     */
    public synchronized boolean verifyNotBehind() {
        long epoch = rewinds.get();
        long[] confirmed = new long[filter.geometry().shards()];
        addCounts.snapshot(confirmed); // before the read: Redis counted these first
        boolean[] handled = new boolean[confirmed.length];
        for (int shard = 0; shard < confirmed.length; shard++) {
            Map<String, String> counts = filter.store().hashGetAll(filter.keys().addCount(shard));
            AddCounts.Finding finding = addCounts.compare(shard, counts, confirmed[shard]);
            if (finding.verdict() == AddCounts.Verdict.HANDLED_ELSEWHERE) {
                handled[shard] = true;
                filter.log().info("Filter '{}': another instance found Redis behind and made the filter not ready"
                        + " (shard {})", filter.name(), shard);
                addCounts.rebaseline(shard, counts);
                if (mirror != null) {
                    mirror.clear(); // in case its swap event was missed while Redis restarted
                }
            }
            else if (finding.verdict() == AddCounts.Verdict.BEHIND) {
                return heldWhileActing(() -> rewound(epoch, finding.detail(), handled));
            }
        }
        List<? extends Generation> others = generations == null ? List.of() : generations.others();
        for (Generation other : others) {
            if (other.verifyNotBehind()) {
                return heldWhileActing(() -> rewound(epoch, "generation " + other.keys().live() + " lost adds", handled));
            }
        }
        resolved(true); // Redis holds every add this instance knows of: nothing left to act on
        return false;
    }

    /**
     * Makes the filter not ready everywhere after Redis lost adds: once per rewind, and for the
     * shards on which no other instance did so already. Redis going back in time took every
     * generation of the filter with it, so the others this instance writes to are made not
     * ready too: their instances (and this one, when it answers from one) bypass and reload them.
     *
     * @param handled per shard, whether another instance is known to have acted on it already
     *     (updated here)
     * @return whether this instance acted on the rewind
     */
    private synchronized boolean rewound(long epoch, String detail, boolean[] handled) {
        if (!rewinds.compareAndSet(epoch, epoch + 1)) {
            return false;
        }
        try {
            for (int shard = 0; shard < handled.length; shard++) {
                if (handled[shard]) {
                    continue;
                }
                Map<String, String> counts = filter.store().hashGetAll(filter.keys().addCount(shard));
                if (addCounts.handledElsewhere(shard, counts)) {
                    handled[shard] = true;
                    addCounts.rebaseline(shard, counts);
                }
            }
        }
        catch (BitmapStoreException ex) {
            filter.log().warn("Filter '{}': could not read the add counts after a rewind: {}", filter.name(),
                    ex.getMessage());
        }
        if (mirror != null) {
            mirror.clear();
        }
        if (IntStream.range(0, handled.length).allMatch(shard -> handled[shard])) {
            filter.log().info("Filter '{}': Redis lost adds ({}); another instance already made the filter not ready",
                    filter.name(), detail);
            resolved(true);
            return false;
        }
        filter.log().error("Filter '{}': Redis lost adds ({}): it restarted from an older snapshot or failed over to a"
                + " replica that lagged. The filter bypasses on every instance until it is loaded again", filter.name(),
                detail);
        try {
            for (int shard = 0; shard < handled.length; shard++) {
                if (!handled[shard]) {
                    filter.store().clearBit(filter.keys().live(shard), filter.geometry().markerOffset());
                    // After the marker: an instance that sees this count grow finds the shard not ready already.
                    filter.store().hashIncrement(filter.keys().addCount(shard), AddCounts.REWINDS_FIELD, 1);
                    addCounts.rebaseline(shard, filter.store().hashGetAll(filter.keys().addCount(shard)));
                }
            }
            if (generations != null) {
                generations.invalidateOthers();
            }
            events.publishSwap();
            resolved(true);
        }
        catch (BitmapStoreException ex) {
            // Held until a later look (the upkeep's, or an add's) makes it not ready.
            resolved(false);
            filter.log().warn("Filter '{}': could not make the filter not ready after the rewind: {}", filter.name(),
                    ex.getMessage());
        }
        notReady.run();
        return true;
    }
}
