package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The few Redis operations a filter needs. Every method is one round trip unless it says
 * otherwise; a missing key reads as all zeros, as Redis itself does. Every failure, refusal or
 * timeout is a {@link BitmapStoreException}.
 *
 * <p>Size: one SPI of about 25 methods, most a line of contract each; issue 15 splits it into
 * role interfaces (checks, writes, load, journal, coordination). Not split here: every
 * implementation (the Lettuce store, the benchmark's in-memory one) would change with it.
 */
public interface BitmapStore {

    /**
     * Reads the bits at {@code offsets[0 .. count)} of {@code key} with one {@code BITFIELD_RO}.
     *
     * @return the indexes (into {@code offsets}) whose bit is set
     * @throws BitmapStoreException when Redis fails or does not answer within {@code timeout}
     */
    BitSet readBits(String key, long[] offsets, int count, Duration timeout);

    /**
     * {@link #readBits} for several keys (shards), every command sent before any reply is
     * awaited: about one round trip per node. Each {@code offsets} array is read whole.
     *
     * @return one answer per key, in order
     */
    List<BitSet> readBitsMany(List<String> keys, List<long[]> offsets, Duration timeout);

    /**
     * {@link #readBits} without blocking the calling thread, for reactive callers: the future
     * completes with the answer or with a {@link BitmapStoreException}, never later than
     * {@code timeout}. The default answers by calling {@link #readBits} at once, which is right
     * for a store that does no I/O; a store that talks to Redis overrides it.
     */
    default CompletableFuture<BitSet> readBitsAsync(String key, long[] offsets, int count, Duration timeout) {
        return completeNow(() -> readBits(key, offsets, count, timeout));
    }

    /** {@link #readBitsMany} without blocking the calling thread; see {@link #readBitsAsync}. */
    default CompletableFuture<List<BitSet>> readBitsManyAsync(List<String> keys, List<long[]> offsets,
            Duration timeout) {
        return completeNow(() -> readBitsMany(keys, offsets, timeout));
    }

    /** {@link #journalAndSetBitsMany} without blocking the calling thread; see {@link #readBitsAsync}. */
    default CompletableFuture<List<AddReceipt>> journalAndSetBitsManyAsync(List<ShardAdds> adds) {
        return completeNow(() -> journalAndSetBitsMany(adds));
    }

    /**
     * Publishes {@code message} on {@code channel} only while field {@code trustingUntil} of hash
     * {@code metaKey} lies ahead by Redis's clock (an instance's mirror trusts its clear bits and
     * must hear every add), without blocking the calling thread.
     *
     * @return whether it was published
     */
    CompletableFuture<Boolean> announceAsync(String metaKey, String channel, byte[] message);

    /**
     * Once {@code metaKey} holds {@code loadedAt}, moves its field {@code trustingUntil} to at
     * least {@code ttl} ahead by Redis's clock; then publishes {@code ping} on {@code channel}.
     * One script, so that the ping comes after the field.
     *
     * @return {@code trustingUntil} before (0 when missing) and after, and Redis's time, in ms
     */
    long[] renewTrust(String metaKey, String channel, byte[] ping, Duration ttl);

    /** {@link #publish} without blocking the calling thread; see {@link #readBitsAsync}. */
    default CompletableFuture<Void> publishAsync(String channel, byte[] message) {
        return completeNow(() -> {
            publish(channel, message);
            return null;
        });
    }

    private static <T> CompletableFuture<T> completeNow(java.util.function.Supplier<T> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Records adds for the swaps to come and sets their bits, for several shards, every command
     * sent before any reply is awaited (about one round trip per node): per shard
     * {@code RPUSH journal entries...}, {@code BITFIELD bitmapKey SET ...}, then, when the shard
     * has a count key, {@code HINCRBY countKey countField entries}. The order matters: a swap that runs between
     * the push and the bits has already replayed the entry, and the bits then land on the new
     * bitmap; and a snapshot of Redis that holds the count holds the bits counted.
     *
     * @return per shard, the journal's length after the push and the count after the increment
     *         (-1 without a count key)
     */
    List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds);

    /**
     * The adds of one shard: journal entries, the bits to set, and the hash and field counting
     * this instance's adds (null: not counted).
     */
    record ShardAdds(String journalKey, List<byte[]> entries, String bitmapKey, long[] offsets, String countKey,
            String countField) {
    }

    /** What {@link #journalAndSetBitsMany} left in one shard. */
    record AddReceipt(long journalLength, long addCount) {
    }

    /** {@code GETRANGE key start end} (inclusive byte offsets); empty when the key does not exist. */
    byte[] getRange(String key, long start, long end);

    /** {@code PUBLISH channel message}. */
    void publish(String channel, byte[] message);

    /**
     * Subscribes {@code listener} to {@code channel} on a connection of its own, which
     * reconnects and resubscribes by itself; closing the result unsubscribes.
     */
    Subscription subscribe(String channel, ChannelListener listener);

    /** What a subscription hands on. */
    @FunctionalInterface
    interface ChannelListener {

        void onMessage(byte[] message);

        /**
         * Redis confirmed the subscription: the first time, and again after each reconnect.
         * What was published before (while disconnected) was not heard and never will be.
         */
        default void onSubscribed() {
        }
    }

    /** A subscription that {@link #subscribe} opened; closing it unsubscribes. */
    interface Subscription extends AutoCloseable {

        /**
         * True from Redis's confirmation of the subscription until the connection is lost: what
         * is published meanwhile reaches the listener. Pub/sub keeps nothing for a subscriber
         * that is not connected.
         */
        boolean isHearing();

        @Override
        void close();
    }

    /**
     * Writes {@code bitmap} as the whole value of {@code key}, expiring after {@code expiry}:
     * one {@code SET} for the first chunk and {@code SETRANGE} for the rest, so Redis allocates
     * the string once instead of growing it bit by bit.
     */
    void writeBitmap(String key, byte[] bitmap, Duration expiry);

    /** A replay's or swap's answer when the staging key is missing or is not the bitmap uploaded. */
    long STAGING_ALTERED = -1;

    /** A replay's or swap's answer when the journal no longer holds the load's mark where it was left. */
    long JOURNAL_LOST = -2;

    /** A replay's or swap's answer when a newer load began on the shard since this one: it must not swap. */
    long SUPERSEDED = -3;

    /**
     * The keys of one shard's adds journal, all in the shard's hash slot.
     *
     * @param current the list adds are pushed onto
     * @param previous the list {@code current} became at the last rotation
     * @param since when {@code current} began (Redis time, ms)
     * @param dropped present while adds younger than the retention may have left the journal
     * @param loading the fencing token of the newest load of the shard; present while it runs
     */
    record JournalKeys(String current, String previous, String since, String dropped, String loading) {
    }

    /**
     * An uploaded bitmap as the replays and the swap must find it.
     *
     * @param key the staging key
     * @param length its length in bytes
     * @param population its set bits as uploaded
     * @param token the load's fencing token, held by the journal's {@code loading} key
     * @param journalMark the entry the load pushed onto the journal before reading its source
     * @param markIndex where in the current journal the mark was pushed
     */
    record Staging(String key, long length, long population, String token, byte[] journalMark, long markIndex) {
    }

    /**
     * In one script: marks {@code journal} as loaded by {@code token} (overwriting an older load's
     * token, which can then no longer swap; kept at most {@code ttl}), then pushes {@code mark}
     * onto it.
     *
     * @return the mark's index in the current journal
     */
    long beginJournalLoad(JournalKeys journal, String token, byte[] mark, Duration ttl);

    /**
     * One bounded step of a replay: if the load still holds the shard ({@code token}), the staging
     * key is still there (and, when {@code verifyUpload}, still has its uploaded length and
     * population) and the mark is still where it was left, sets on the staging key the bits of up
     * to {@code count} journal entries of {@code list} from {@code start}.
     *
     * @return {entries read, adds replayed}, or {code, 0} with {@link #STAGING_ALTERED},
     *         {@link #JOURNAL_LOST} or {@link #SUPERSEDED}
     */
    long[] replayJournal(Staging staging, JournalKeys journal, String list, long start, int count,
            boolean verifyUpload);

    /**
     * Atomically (one script), and only if the load still holds the shard, the staging key still
     * has its length and the mark is still where it was left: replays the current journal from
     * {@code tailStart} onto the staging key, merges the live bitmap into it while
     * {@code journal.dropped()} exists, removes its expiry, renames it over {@code live}, ends the
     * load's hold on the journal and records {@code meta}. The journal itself stays: it keeps adds
     * for the retention, whatever the swaps. Otherwise changes nothing.
     *
     * @return adds replayed, or {@link #STAGING_ALTERED}, {@link #JOURNAL_LOST} or {@link #SUPERSEDED}
     */
    long swapIn(Staging staging, String live, JournalKeys journal, long tailStart, String metaKey,
            Map<String, String> meta);

    /**
     * Keeps the journal within its retention and capacity, in one script: when {@code current}
     * began at least {@code retention} ago and no load holds the journal, drops {@code previous}
     * and makes {@code current} the new {@code previous} (so an add stays between one and two
     * retentions); then, beyond {@code capacity} entries in both, drops the oldest (from
     * {@code current} only while no load holds the journal: the load's mark must not move) and
     * marks the journal {@code dropped} for a retention, so that swaps merge the live bitmap
     * meanwhile.
     *
     * @return the entries dropped beyond the capacity
     */
    long maintainJournal(JournalKeys journal, Duration retention, long capacity);

    /**
     * In one script, by Redis's clock: {@code HSET instancesKey instanceId "<instanceValue>|<now>"},
     * {@code HSET generationsKey generation <now>} for each of {@code generations},
     * {@code HSET invalidatedKey key <now>} for each of {@code invalidated}, then the three hashes whole.
     */
    Heartbeat heartbeat(String instancesKey, String generationsKey, String invalidatedKey, String instanceId,
            String instanceValue, List<String> generations, List<String> invalidated);

    /** What {@link #heartbeat} read: Redis's time (ms) and the hashes. */
    record Heartbeat(long now, Map<String, String> instances, Map<String, String> generations,
            Map<String, String> invalidated) {
    }

    /** In one script, by Redis's clock: the hashes {@code generationsKey} and {@code invalidatedKey}, unchanged. */
    Registry readRegistry(String generationsKey, String invalidatedKey);

    /** What {@link #readRegistry} read. */
    record Registry(long now, Map<String, String> generations, Map<String, String> invalidated) {
    }

    /** {@code HSET key field value}. */
    void hashSet(String key, String field, String value);

    /**
     * Redis's clock ({@code TIME}), in milliseconds, as the node serving {@code slotKey}'s slot
     * reads it (the key is not touched): times compared with each other come from one node's clock.
     */
    long timeMillis(String slotKey);

    /** {@code HINCRBY key field by}: the field's new value. */
    long hashIncrement(String key, String field, long by);

    /** {@code HDEL key field}. */
    void hashDelete(String key, String field);

    /** {@code SETBIT key offset 0} when the key exists (a missing key stays missing). */
    void clearBit(String key, long offset);

    /** {@code BITCOUNT} of the whole value; 0 when it does not exist. */
    long bitCount(String key);

    /** Length of the key's value in bytes, 0 when it does not exist. */
    long length(String key);

    /** {@code DEL keys...}: one command, so keys must share a cluster slot. */
    void delete(String... keys);

    /** {@code LLEN key}: 0 when it does not exist. */
    long listLength(String key);

    /**
     * Empties the element at {@code index} of {@code key} if it still is {@code value}: unlike
     * removing it, this moves no other element, so the positions a running load relies on stay.
     */
    void listBlankIfEquals(String key, long index, byte[] value);

    /** {@code SET key value NX PX ttl} ({@code ttl} null: no expiry): true when the key was free and is now {@code value}. */
    boolean setIfAbsent(String key, String value, Duration ttl);

    /** Extends the expiry of {@code key} only while it still holds {@code value}. */
    boolean expireIfEquals(String key, String value, Duration ttl);

    /** Deletes {@code key} only while it still holds {@code value}. */
    boolean deleteIfEquals(String key, String value);

    Optional<String> get(String key);

    Map<String, String> hashGetAll(String key);

    /**
     * Remembers a key the lookup {@code scope} did not find (see {@code RememberedMisses}): sets
     * field {@code scope} of hash {@code missKey} to the {@code loadedAt} field of {@code metaKey}
     * and the time, {@code ttl} from now, when it ends; unless {@code addedKey} exists (the key was
     * added a moment ago, after the method may have read the database) or the filter has no live
     * load. Nothing is sent once {@link System#nanoTime()} has passed {@code sendByNanos} (a wait
     * for a connection): false. True when remembered.
     */
    default CompletableFuture<Boolean> rememberMissAsync(String missKey, String scope, String addedKey,
            String metaKey, Duration ttl, long sendByNanos) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getName() + " does not remember misses"));
    }

    /**
     * Whether {@code missKey} still says the key is absent for {@code scope}: its field exists, has
     * not ended, and was written under the live load that {@code metaKey} describes (a swap since
     * then, a rebuild among them, forgets it).
     */
    default CompletableFuture<Boolean> missRememberedAsync(String missKey, String scope, String metaKey,
            Duration timeout) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getName() + " does not remember misses"));
    }

    /**
     * Forgets remembered misses of keys just added: for each i, first sets {@code addedKeys[i]}
     * (when given: {@code addedKeys} may be empty) for {@code window}, then deletes
     * {@code missKeys[i]}, in that order, so that a remember racing with the add either lands
     * before the delete or sees the added key and gives up. The default does nothing: a store
     * that cannot remember misses has none to forget.
     */
    default CompletableFuture<Void> forgetMissesAsync(List<String> missKeys, List<String> addedKeys,
            Duration window) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * {@link #forgetMissesAsync}, for a writer that does not remember misses itself: the marks
     * are set only while the {@code missesUntil} field of {@code metaKey} (which every remember
     * moves to its end plus the window) lies ahead, so that a filter nobody remembers misses of
     * gets no marks; the misses are deleted either way. An add without marks records its time in
     * the {@code unmarkedAddAt} field instead, and {@link #rememberMissAsync} takes no remember
     * within the window after it (the first remember of a quiet filter may race such an add).
     * Both fields outlive a swap. Default: nothing, as for forgetting.
     */
    default CompletableFuture<Void> forgetMissesIfInUseAsync(String metaKey, List<String> missKeys,
            List<String> addedKeys, Duration window) {
        return CompletableFuture.completedFuture(null);
    }

    /** The store's circuit breaker, for operators. */
    CircuitBreaker.State circuitState();
}
