package dev.bloomguard.core.load;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.write.JournalUpkeep;

/**
 * The loads of one generation of a filter: one at a time in this process ({@link #begin}), each a
 * {@link BulkLoad}. What a swap leaves behind for the rest of the filter (the journal rotated,
 * remembered misses and mirror pages dropped, other instances told) is done here, once per swap.
 */
public final class FilterLoader {

    final FilterContext filter;
    final FilterGenerations<?> generations;
    final String keyPrefix;
    private final FilterEvents events;
    private final BitmapMirror mirror;
    private final RememberedMisses misses;
    private final double maxShrink;
    /** How long a load's hold on the journals outlives a loader that died; renewed while it runs. */
    final Duration hold;
    private final JournalUpkeep journal;
    final OverCapacity overCapacity;
    final AtomicBoolean loading = new AtomicBoolean();
    private volatile LoadReport lastLoad;
    private final Consumer<LoadReport> loaded;

    /**
     * @param generations the filter's generations, or null outside a rollout
     * @param mirror the local mirror, or null
     * @param misses the remembered misses, or null
     * @param resizePolicy how the filter grows when a load finds it over capacity; null: it does not
     * @param loaded told of each load that swapped in, on the loading thread; must return at once
     */
    public FilterLoader(FilterContext filter, String keyPrefix, FilterGenerations<?> generations, FilterEvents events,
            BitmapMirror mirror, RememberedMisses misses, double maxShrink, Duration hold, JournalUpkeep journal,
            FilterResize.Policy resizePolicy, Consumer<LoadReport> loaded) {
        this.filter = filter;
        this.keyPrefix = keyPrefix;
        this.generations = generations;
        this.events = events;
        this.mirror = mirror;
        this.misses = misses;
        this.maxShrink = maxShrink;
        this.hold = hold;
        this.journal = journal;
        this.overCapacity = new OverCapacity(filter, keyPrefix, resizePolicy);
        this.loaded = loaded;
    }

    /**
     * Starts a load: before the source takes its snapshot.
     *
     * @throws IllegalStateException when a load of this filter is already running in this process
     */
    public BulkLoad begin() {
        if (!loading.compareAndSet(false, true)) {
            throw new IllegalStateException("filter '" + filter.name() + "' is already loading");
        }
        try {
            return new BulkLoad(this);
        }
        catch (RuntimeException ex) {
            loading.set(false);
            if (generations != null) {
                generations.loadEnded(false);
            }
            throw ex;
        }
    }

    public boolean isLoading() {
        return loading.get();
    }

    /** See {@link CatchUpTurn}: one instance of the fleet per interval catches up rows written outside the adds. */
    public Optional<CatchUpTurn> tryCatchUpTurn(String sourceId, Duration interval) {
        return CatchUpTurn.tryTake(filter, keyPrefix, sourceId, interval);
    }

    /** See {@link RebuildTurn}: one rebuild on demand per cooldown for the whole fleet. */
    public Optional<RebuildTurn> tryRebuildTurn(Duration cooldown) {
        return RebuildTurn.tryTake(filter, keyPrefix, cooldown);
    }

    /** The last load this instance completed, if any. */
    public Optional<LoadReport> lastLoad() {
        return Optional.ofNullable(lastLoad);
    }

    /**
     * Refuses a load of {@code count} keys that is more than {@code maxShrink} smaller than the
     * most keys any live generation of the filter was loaded with: its own, and every other one
     * the rollout registry names (a new or grown generation has no load of its own to compare
     * with, and a broken source must not fill it with nothing). Without any recorded load (a first
     * load, or Redis lost the metadata) there is nothing to compare with: an empty table is a real
     * state for a new application, and adds fill the filter from there.
     */
    void refuseShrink(long count) {
        // The loads' own counts only: the journal holds one entry per add call (an update saved
        // again, a catch-up re-adding rows), so counting it would refuse loads of a table that did not shrink.
        long largest = LiveGenerations.largestLoad(filter, keyPrefix);
        if (largest > 0 && count < largest * (1.0 - maxShrink)) {
            throw new LoadRefusedException(filter.name(), count, largest, maxShrink);
        }
    }

    /**
     * After a swap: what the rest of the filter must no longer trust, then the report, whose
     * duration counts all of it (from {@code started}, {@link System#nanoTime}).
     */
    LoadReport swapped(long count, long replayed, long started, Instant finished, long[] populations) {
        try {
            journal.maintain();
        }
        catch (BitmapStoreException ex) {
            filter.log().debug("Filter '{}': could not rotate the adds journal after the swap: {}", filter.name(),
                    ex.getMessage());
        }
        if (misses != null) {
            misses.clear();
        }
        if (mirror != null) {
            mirror.clear();
        }
        // From an instance without a mirror too: others' mirrors must not go on trusting the old bitmap.
        try {
            events.publishSwap();
        }
        catch (BitmapStoreException ex) {
            filter.log().warn("Filter '{}': could not tell other mirrors about the swap ({}); they catch up within"
                    + " their local-mirror.refresh-after", filter.name(), ex.getMessage());
        }
        LoadReport report = new LoadReport(filter.name(), count, replayed, Duration.ofNanos(System.nanoTime() - started),
                finished);
        lastLoad = report;
        loaded.accept(report);
        overCapacity.afterLoad(count, populations);
        return report;
    }
}
