package dev.bloomguard.core.check;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.NotReadyCause;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * The checks of one generation of a filter, single and batch, blocking and not: the mirror first,
 * then one {@code BITFIELD_RO} per shard, read by {@link Verdict}. Never throws for Redis
 * failures, and an asynchronous check never completes exceptionally.
 *
 * <p>Which generation answers during a rolling change, and chunking of large batches, are the
 * façade's ({@code RedisBloomFilter}); so is what happens when a check finds the filter not ready
 * ({@code notReady}, called on the checking thread of a blocking check and in the background for
 * an asynchronous one).
 */
public final class FilterChecks {

    private final FilterContext filter;
    private final BitmapMirror mirror;
    private final Holds holds;
    private final Consumer<NotReadyCause> notReady;

    /**
     * @param mirror the local mirror, or null
     * @param holds this generation's reasons not to block; read when a check is sent and when its reply is read
     * @param notReady told, with the cause, when a reply says the filter is missing, incomplete or
     *     held; must return at once
     */
    public FilterChecks(FilterContext filter, BitmapMirror mirror, Holds holds, Consumer<NotReadyCause> notReady) {
        this.filter = filter;
        this.mirror = mirror;
        this.holds = holds;
        this.notReady = notReady;
    }

    public Membership check(Object key) {
        Probe probe = Probe.of(filter, mirror, key, holds);
        if (probe.local() != null) {
            return probe.local();
        }
        BitSet reply;
        try {
            reply = filter.store().readBits(filter.keys().live(probe.shard()), probe.offsets(), probe.offsets().length,
                    filter.checkTimeout());
        }
        catch (BitmapStoreException ex) {
            filter.log().debug("Filter '{}': check failed: {}", filter.name(), ex.getMessage());
            return Membership.UNAVAILABLE;
        }
        Membership answer = probe.answer(reply, mirror, holds);
        if (answer == Membership.NOT_READY) {
            tell(probe.cause(reply, holds));
        }
        return answer;
    }

    public CompletableFuture<Membership> checkAsync(Object key) {
        Probe probe = Probe.of(filter, mirror, key, holds);
        if (probe.local() != null) {
            return CompletableFuture.completedFuture(probe.local());
        }
        return filter.store().readBitsAsync(filter.keys().live(probe.shard()), probe.offsets(), probe.offsets().length,
                filter.checkTimeout()).handle((reply, error) -> {
                    if (error != null) {
                        filter.log().debug("Filter '{}': check failed: {}", filter.name(), error.getMessage());
                        return Membership.UNAVAILABLE;
                    }
                    Membership answer = probe.answer(reply, mirror, holds);
                    if (answer == Membership.NOT_READY) {
                        NotReadyCause cause = probe.cause(reply, holds);
                        if (cause != null) {
                            filter.background().execute(() -> notReady.accept(cause));
                        }
                    }
                    return answer;
                });
    }

    /** Checks at most one chunk of keys: every shard's command sent before any reply is awaited. */
    public List<Membership> checkAll(Collection<?> keys) {
        BatchProbes batch = new BatchProbes(filter, mirror, keys, holds.sent());
        if (batch.allInMirror()) {
            return batch.allPresent();
        }
        List<BitSet> replies = null;
        if (!batch.shardKeys.isEmpty()) {
            try {
                replies = filter.store().readBitsMany(batch.shardKeys, batch.probes, filter.checkTimeout());
            }
            catch (BitmapStoreException ex) {
                filter.log().debug("Filter '{}': batch check failed: {}", filter.name(), ex.getMessage());
            }
        }
        List<Membership> result = batch.answers(replies, holds);
        if (result.contains(Membership.NOT_READY)) {
            tell(batch.cause(replies, holds));
        }
        return result;
    }

    public CompletableFuture<List<Membership>> checkAllAsync(Collection<?> keys) {
        BatchProbes batch = new BatchProbes(filter, mirror, keys, holds.sent());
        if (batch.allInMirror()) {
            return CompletableFuture.completedFuture(batch.allPresent());
        }
        if (batch.shardKeys.isEmpty()) {
            return CompletableFuture.completedFuture(batch.answers(List.of(), holds));
        }
        return filter.store().readBitsManyAsync(batch.shardKeys, batch.probes, filter.checkTimeout())
                .handle((replies, error) -> {
                    if (error != null) {
                        filter.log().debug("Filter '{}': batch check failed: {}", filter.name(), error.getMessage());
                    }
                    List<Membership> result = batch.answers(error == null ? replies : null, holds);
                    if (result.contains(Membership.NOT_READY)) {
                        NotReadyCause cause = batch.cause(error == null ? replies : null, holds);
                        if (cause != null) {
                            filter.background().execute(() -> notReady.accept(cause));
                        }
                    }
                    return result;
                });
    }

    private void tell(NotReadyCause cause) {
        if (cause != null) {
            notReady.accept(cause);
        }
    }

    /**
     * Whether the live bitmap of every shard is complete, as Redis answered; empty when Redis did
     * not (a timeout, an open circuit), which says nothing about the filter.
     */
    public Optional<Boolean> isComplete() {
        try {
            return Optional.of(readyShards() == filter.geometry().shards());
        }
        catch (BitmapStoreException ex) {
            return Optional.empty();
        }
    }

    /** The shards whose ready marker is set; throws when Redis does not answer. */
    public int readyShards() {
        int shards = filter.geometry().shards();
        List<String> shardKeys = new ArrayList<>(shards);
        List<long[]> markers = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            shardKeys.add(filter.keys().live(shard));
            markers.add(new long[] { filter.geometry().markerOffset() });
        }
        int ready = 0;
        for (BitSet marker : filter.store().readBitsMany(shardKeys, markers, filter.checkTimeout())) {
            ready += marker.get(0) ? 1 : 0;
        }
        return ready;
    }
}
