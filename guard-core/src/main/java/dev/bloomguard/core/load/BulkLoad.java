package dev.bloomguard.core.load;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.IncompleteLoadException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.warmup.BitmapBuilder;

/**
 * One load, begun before its source takes its snapshot: from then on every add is journaled after
 * a mark this load leaves in each shard's journal, and the swap goes ahead only if that mark is
 * still there. If Redis lost the journal meanwhile (a flush, an eviction, a failover), adds made
 * after the snapshot may be missing from the new bitmap, so it is not swapped in. The bitmap is
 * built in memory ({@link SourceHashing}), uploaded to staging keys that expire by themselves, and
 * swapped in shard by shard, shard 0 (with the live metadata) last ({@link JournalReplay}).
 * Closing it ends the load, whether or not it swapped.
 */
public final class BulkLoad implements AutoCloseable {

    /**
     * Starts the journal entry a load leaves to find at its swap: 13 bytes, so never taken for an
     * add's packed offsets, whose length is a multiple of 4.
     */
    private static final SecureRandom MARKS = new SecureRandom();

    /** A staging key left by a crashed load disappears by itself after this. */
    private static final Duration STAGING_EXPIRY = Duration.ofHours(1);

    /** Renews the holds of the loads running in this process. */
    private static final ScheduledExecutorService HOLDS = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "bloomguard-load-hold");
        thread.setDaemon(true);
        return thread;
    });

    private final FilterLoader loader;
    private final FilterContext filter;
    private final FilterGenerations<?> generations;
    private final long started = System.nanoTime();
    private final byte[] mark;
    private final String token;
    private final long[] markIndexes;
    /** Whether every instance wrote to this generation when the load began; see {@link FilterGenerations}. */
    private final boolean covering;
    /**
     * When this load began by Redis's clock (ms), not the loader's: which of two generations'
     * bitmaps was read from the source later, and whether it began after a generation was found
     * left unwritten ({@link FilterGenerations}).
     */
    private final long began;
    private boolean used;
    private boolean swapped;
    private ScheduledFuture<?> holding;

    BulkLoad(FilterLoader loader) {
        this.loader = loader;
        this.filter = loader.filter;
        this.generations = loader.generations;
        this.mark = journalMark(filter.geometry());
        this.token = filter.instanceId() + "/" + UUID.randomUUID();
        this.markIndexes = new long[filter.geometry().shards()];
        if (generations != null) {
            FilterGenerations.LoadStart start = generations.loadBegins();
            began = start.began();
            covering = start.covering();
            generations.loadStarting(covering);
        }
        else {
            began = filter.store().timeMillis(FilterGenerations.generationsKey(loader.keyPrefix, filter.name()));
            covering = true;
        }
        int begun = 0;
        try {
            for (; begun < filter.geometry().shards(); begun++) {
                markIndexes[begun] = filter.store().beginJournalLoad(filter.keys().journalKeys(begun), token, mark,
                        loader.hold);
            }
            long period = Math.max(1, loader.hold.toMillis() / 3);
            holding = HOLDS.scheduleAtFixedRate(this::renewHold, period, period, TimeUnit.MILLISECONDS);
        }
        catch (RuntimeException ex) {
            abandon(begun);
            throw ex;
        }
    }

    /**
     * Keeps the hold on every journal while this load runs; a loader that died leaves it to expire
     * within one hold, and the journals rotate and trim again. A hold that lapsed (a pause longer
     * than it) costs this load its swap, never a key: its mark may have left the journal.
     */
    private void renewHold() {
        try {
            for (int shard = 0; shard < markIndexes.length; shard++) {
                filter.store().expireIfEquals(filter.keys().journalKeys(shard).loading(), token, loader.hold);
            }
        }
        catch (RuntimeException ex) {
            filter.log().debug("Filter '{}': could not renew a load's hold on the journal: {}", filter.name(),
                    ex.getMessage());
        }
    }

    /**
     * A load's mark in the journals: three 4-byte offsets, as adds are packed, so that the journal
     * stays a list of offsets that any swap can replay (one that replayed every entry as an offset
     * would read it harmlessly): the ready marker's offset, which no add has and which the swap
     * script recognises, then two random offsets below 65,536 that make the mark this load's own
     * (replayed as offsets they are two set bits, that is, two possible false positives).
     */
    private static byte[] journalMark(FilterGeometry geometry) {
        return ByteBuffer.allocate(12).putInt((int) geometry.markerOffset())
                .putShort((short) 0).putShort((short) MARKS.nextInt(1 << 16))
                .putShort((short) 0).putShort((short) MARKS.nextInt(1 << 16)).array();
    }

    /** Takes this load's hold and mark out of the first {@code shards} journals, as far as Redis lets it. */
    private void abandon(int shards) {
        try {
            for (int shard = 0; shard < shards; shard++) {
                BitmapStore.JournalKeys journal = filter.keys().journalKeys(shard);
                filter.store().deleteIfEquals(journal.loading(), token);
                // Blanked in place, not removed: another load's replay counts positions.
                filter.store().listBlankIfEquals(journal.current(), markIndexes[shard], mark);
            }
        }
        catch (BitmapStoreException ex) {
            filter.log().debug("Filter '{}': could not take an abandoned load's mark out of the journal: {}",
                    filter.name(), ex.getMessage());
        }
    }

    /**
     * Builds the bitmap from {@code source}, uploads it and swaps it in; once per load. Unless
     * {@code force}, a load that read far fewer keys than the live filter holds is not swapped in.
     *
     * @throws IncompleteLoadException when Redis lost part of the load before the swap, or a
     *         newer load began meanwhile; load again
     * @throws dev.bloomguard.core.LoadRefusedException when the load shrank the filter too much
     */
    public LoadReport load(Iterator<?> source, String sourceId, Instant sourceTime, boolean force) {
        if (used) {
            throw new IllegalStateException("a pending load of filter '" + filter.name() + "' loads once");
        }
        used = true;
        LoadReport report = buildAndSwap(source, sourceId, sourceTime, force);
        swapped = true;
        return report;
    }

    /**
     * Ends the load. One that did not swap takes its mark out of the journals, so it does not
     * count as an add, and its hold on them, so that they rotate again.
     */
    @Override
    public void close() {
        holding.cancel(false);
        try {
            if (!swapped) {
                abandon(filter.geometry().shards());
            }
        }
        finally {
            loader.loading.set(false);
            if (generations != null) {
                generations.loadEnded(swapped && covering && !generations.ownInvalidatedSince(began));
            }
        }
    }

    private LoadReport buildAndSwap(Iterator<?> source, String sourceId, Instant sourceTime, boolean force) {
        FilterGeometry geometry = filter.geometry();
        int shards = geometry.shards();
        String[] staging = new String[shards];
        long[] lengths = new long[shards];
        long[] populations = new long[shards];
        try {
            BitmapBuilder[] bitmaps = new BitmapBuilder[shards];
            for (int shard = 0; shard < shards; shard++) {
                bitmaps[shard] = BitmapBuilder.forGeometry(geometry);
            }
            long count = SourceHashing.readInto(filter, bitmaps, source);
            if (!force) {
                loader.refuseShrink(count);
            }
            for (int shard = 0; shard < shards; shard++) {
                bitmaps[shard].markComplete();
                staging[shard] = filter.keys().newStaging(shard);
                byte[] bitmap = bitmaps[shard].bytes();
                lengths[shard] = bitmap.length;
                populations[shard] = bitmaps[shard].bitCount() + 1; // and the marker
                filter.store().writeBitmap(staging[shard], bitmap, STAGING_EXPIRY);
                bitmaps[shard] = null;
            }
            Duration duration = Duration.ofNanos(System.nanoTime() - started);
            Instant finished = Instant.now();
            boolean covered = covering && (generations == null || !generations.ownInvalidatedSince(began));
            Map<String, String> meta = LiveMeta.of(finished, count, filter.instanceId(), duration.toMillis(), sourceId,
                    sourceTime, covered, began);
            long replayed = 0;
            for (int shard = shards - 1; shard >= 0; shard--) {
                BitmapStore.Staging staged = new BitmapStore.Staging(staging[shard], lengths[shard], populations[shard],
                        token, mark, markIndexes[shard]);
                // Every shard's :meta names the load it swapped in, which its remembered misses are
                // kept under (they live in the key's shard's slot: see MissKeys); shard 0's says the rest.
                replayed += JournalReplay.replayAndSwap(filter, staged, shard,
                        shard == 0 ? meta : Map.of(LiveMeta.LOADED_AT, meta.get(LiveMeta.LOADED_AT)));
                staging[shard] = null;
            }
            return loader.swapped(count, replayed, started, finished, populations);
        }
        catch (RuntimeException ex) {
            for (String key : staging) {
                if (key != null) {
                    discard(key);
                }
            }
            throw ex;
        }
    }

    private void discard(String staging) {
        try {
            filter.store().delete(staging);
        }
        catch (RuntimeException ex) {
            filter.log().warn("Filter '{}': could not delete staging key {} ({}); it expires by itself", filter.name(),
                    staging, ex.getMessage());
        }
    }
}
