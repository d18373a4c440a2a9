package dev.bloomguard.core.write;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.events.AddCount;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.misses.MissKeys;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * The adds of one generation of a filter, blocking and not: each key's remembered misses are
 * forgotten first, then one pipelined round trip per shard journals it, sets its bits and counts
 * it ({@code BitmapStore#journalAndSetBitsMany}); then the counts are compared ({@link RewindWatch}),
 * a full journal is trimmed, and mirrors hear of the bits. Chunking, and the other generations of
 * a rolling change, are the façade's ({@code RedisBloomFilter}).
 */
public final class FilterWrites {

    private final FilterContext filter;
    private final BitmapMirror mirror;
    private final RememberedMisses misses;
    private final FilterEvents events;
    private final RewindWatch rewinds;
    private final JournalUpkeep journal;

    /**
     * @param mirror the local mirror, or null
     * @param misses the remembered misses, or null when this instance does not remember them
     */
    public FilterWrites(FilterContext filter, BitmapMirror mirror, RememberedMisses misses, FilterEvents events,
            RewindWatch rewinds, JournalUpkeep journal) {
        this.filter = filter;
        this.mirror = mirror;
        this.misses = misses;
        this.events = events;
        this.rewinds = rewinds;
        this.journal = journal;
    }

    /**
     * Adds the non-null keys of one chunk; {@code others} runs once their bits are set, before a
     * failure to forget is thrown (the other generations of a rolling change). Nothing runs
     * without a key to add.
     *
     * @throws BitmapStoreException when Redis fails, or when forgetting a remembered miss failed
     *     (the bits are set then, so that other instances do not block the keys meanwhile)
     */
    public void addAll(Collection<?> keys, Runnable others) {
        AddBatch adds = new AddBatch(filter, rewinds.addCounts(), keys);
        if (adds.isEmpty()) {
            return;
        }
        BitmapStoreException notForgotten = forgetMissesFirst(keys);
        List<BitmapStore.AddReceipt> receipts = filter.store().journalAndSetBitsMany(adds.batch);
        afterAdds(adds, receipts);
        announce(adds, receipts);
        others.run();
        if (notForgotten != null) {
            throw notForgotten;
        }
    }

    /**
     * {@link #addAll} without blocking: completes once every key is journaled and its bits set,
     * then with the forget's failure if there was one; {@code others} runs after the bits are set
     * and before that failure is reported (the other generations of a rolling change).
     */
    public CompletableFuture<Void> addAllAsync(Collection<?> keys,
            Supplier<CompletableFuture<Void>> others) {
        AddBatch adds = new AddBatch(filter, rewinds.addCounts(), keys);
        if (adds.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Throwable> forgotten = forgetOwnMissesAsync(keys).handle((done, error) -> error);
        return forgotten.thenCompose(notForgotten -> filter.store().journalAndSetBitsManyAsync(adds.batch)
                .thenAccept(receipts -> {
                    afterAdds(adds, receipts);
                    announce(adds, receipts);
                }).thenCompose(done -> others.get())
                .thenRun(() -> {
                    if (notForgotten != null) {
                        throw notForgotten instanceof CompletionException completion ? completion
                                : new CompletionException(notForgotten);
                    }
                }));
    }

    /**
     * Forgets remembered misses of keys about to be added; returns the failure, which fails the
     * add once its bits are set (so that other instances do not block the keys meanwhile). Every
     * filter does so, whether or not it remembers misses itself: instances of one filter need not
     * agree on {@code negative-cache} (a rolling change of it, a writer built with guard-core
     * alone), and a key one of them remembered must not outlive another's add. Before the add's
     * journal, bits and count, so that a Redis that comes back without the forget (an AOF or
     * replica cut just after it) has lost the counted add too, which the rewind check notices;
     * a remember in between is refused by the forget's mark.
     */
    private BitmapStoreException forgetMissesFirst(Collection<?> added) {
        try {
            forgetOwnMissesAsync(added).join();
            return null;
        }
        catch (CompletionException ex) {
            return ex.getCause() instanceof BitmapStoreException store ? store
                    : new BitmapStoreException("forgetting remembered misses failed: " + ex.getCause(), ex.getCause());
        }
    }

    /** Forgets the remembered misses of {@code added} under this generation's keys: a mark, then a delete. */
    public CompletableFuture<Void> forgetOwnMissesAsync(Collection<?> added) {
        List<Object> canonicalKeys = new ArrayList<>(added.size());
        for (Object key : added) {
            if (key != null) {
                canonicalKeys.add(filter.canonical(key));
            }
        }
        if (misses != null) {
            return misses.forgetAsync(canonicalKeys);
        }
        // By shard: each shard's meta, marks and misses share its slot, and one script call each.
        Map<Integer, List<String>> missKeys = new TreeMap<>();
        Map<Integer, List<String>> addedKeys = new TreeMap<>();
        long[] offsets = new long[filter.geometry().hashes()];
        for (Object key : canonicalKeys) {
            String digest = MissKeys.digest(key);
            int shard = filter.place(key, offsets, 0);
            missKeys.computeIfAbsent(shard, any -> new ArrayList<>()).add(MissKeys.miss(filter.keys(), shard, digest));
            addedKeys.computeIfAbsent(shard, any -> new ArrayList<>()).add(MissKeys.added(filter.keys(), shard, digest));
        }
        List<CompletableFuture<Void>> forgotten = new ArrayList<>(missKeys.size());
        for (Map.Entry<Integer, List<String>> shard : missKeys.entrySet()) {
            try {
                // Marks too while some instance remembers misses of the filter: it may remember while this
                // one, without misses of its own, adds. None otherwise (they would outlive a deleted generation).
                forgotten.add(filter.store().forgetMissesIfInUseAsync(filter.keys().meta(shard.getKey()),
                        shard.getValue(), addedKeys.get(shard.getKey()), MissKeys.ADDED_WINDOW));
            }
            catch (RuntimeException ex) {
                forgotten.add(CompletableFuture.failedFuture(ex));
            }
        }
        return CompletableFuture.allOf(forgotten.toArray(CompletableFuture[]::new));
    }

    /**
     * Remembers the shards' add counts (see {@link RewindWatch}), and keeps the journal within its
     * capacity once an add finds it full: in the background, so the add does not wait, and at
     * most once at a time per filter.
     */
    private void afterAdds(AddBatch adds, List<BitmapStore.AddReceipt> receipts) {
        for (int i = 0; i < receipts.size(); i++) {
            long count = receipts.get(i).addCount();
            int shard = adds.shards.get(i);
            if (count < 0) {
                continue;
            }
            AddCounts.Finding finding = rewinds.addCounts().afterAdd(shard, count, adds.batch.get(i).entries().size(),
                    adds.confirmedBefore[shard], adds.epoch);
            if (finding.verdict() == AddCounts.Verdict.BEHIND) {
                rewinds.behind(finding.detail());
            }
        }
        for (BitmapStore.AddReceipt receipt : receipts) {
            if (journal.maintainIfFull(receipt.journalLength())) {
                return;
            }
        }
    }

    /**
     * Applies landed adds to this instance's mirror and tells the other instances' mirrors. An
     * instance without a mirror tells them too, while some instance trusts its mirror's clear
     * bits ({@link FilterEvents#announceAddAsync}): during a rolling change that turns the mirror
     * on, or from a service that only writes, that mirror hears of these adds from nobody else.
     * Sent once the adds have landed, without waiting: another instance may still block such a
     * key from memory for the moment the event takes.
     */
    private void announce(AddBatch adds, List<BitmapStore.AddReceipt> receipts) {
        for (int i = 0; i < adds.batch.size(); i++) {
            long[] all = adds.batch.get(i).offsets();
            long count = receipts.get(i).addCount();
            // With its count, so that a trusting mirror notices when this message never arrives.
            AddCount counted = count < 0 ? null
                    : new AddCount(filter.instanceId(), count, adds.batch.get(i).entries().size());
            if (mirror != null) {
                mirror.apply(adds.shards.get(i), all, 0, all.length);
                events.publishAddAsync(adds.shards.get(i), all, all.length, counted);
            }
            else {
                events.announceAddAsync(filter.keys().meta(), adds.shards.get(i), all, all.length, counted);
            }
        }
    }
}
