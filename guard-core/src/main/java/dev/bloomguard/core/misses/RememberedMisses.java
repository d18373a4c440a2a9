package dev.bloomguard.core.misses;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.hash.KeyEncoding;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * Keys that passed a filter (a false positive, or a key deleted since the last load) and that
 * the guarded method then did not find: remembered as absent for a while, so that a key an
 * attacker found to pass the filter costs the database one query per {@code ttl}, not one per
 * request.
 *
 * <p><b>Misses are per lookup.</b> A miss is remembered for the lookup (the guarded method, its
 * {@code scope}) that found nothing, and rejects that lookup only: an empty list of a user's
 * orders must not make the user's profile 404. An add of the key forgets it for every lookup.
 *
 * <p><b>Redis decides, memory only points.</b> Each remembered key is a Redis hash
 * {@code <live key>:miss:<digest>} (in the key's own shard's hash slot, beside that shard's
 * {@code :meta}, bits and add count: see {@link MissKeys}) with a field per
 * scope that holds the {@code loadedAt} of the live load it was remembered under and when it
 * expires (by Redis's clock); the hash expires with its last field. This
 * instance keeps a bounded index in memory (Caffeine) of the keys it, or with {@code shared} any
 * instance, remembered, so that the keys it does not hold cost nothing; a key the index holds is
 * rejected only once Redis confirms its entry, in one round trip. Nothing in memory can reject a
 * key on its own, so nothing another instance did can be missed by it:
 * <ul>
 * <li>an add of the key, on any instance, deletes the entry before the add returns
 * ({@link #forgetAsync}), and a check after that finds nothing to confirm;
 * <li>a swap (load, rebuild, re-warm) changes {@code loadedAt}, and every entry of the old load
 * stops confirming: a rebuild, the runbook's answer to a blocked real key, also clears this;
 * <li>an entry confirms only while Redis answers: an error lets the call through.
 * </ul>
 *
 * <p><b>The race with a concurrent add.</b> The method may read the database just before another
 * instance commits and adds the key, and remember the miss just after that add deleted nothing.
 * An add therefore also marks the key {@code <live key>:added:<digest>} for {@link #ADDED_WINDOW},
 * before it deletes the entry, and a remember is refused while that mark exists; a remember not
 * sent within {@link #MAX_REMEMBER_DELAY} of its check is not sent at all, so the mark outlives
 * the window in which such a race could happen by 25 s of latency. An add inside a transaction
 * comes before its commit: the starter forgets its keys once more after the commit.
 *
 * <p>A writer that does not remember misses itself (a rolling change that turns them on, a
 * service that only writes) marks its adds only while some instance remembered a miss of the
 * filter lately ({@code missesUntil} in {@code :meta}, which every remember moves on). An add it
 * makes while none did leaves no mark, only its time ({@code unmarkedAddAt}), and no remember of
 * any key is taken for {@link #ADDED_WINDOW} after it: the first remember of a quiet filter may be
 * the one that races it. The cost is that a filter whose misses were not in use remembers nothing
 * for up to 30 s after such an add.
 *
 * <p>Digests are SHA-256 of the key's canonical bytes, not Murmur3: a computed collision must not
 * let one key's miss reject another key.
 */
public final class RememberedMisses {

    /**
     * @param ttl how long a miss is remembered
     * @param maxEntries bound of this instance's index in memory (entries in Redis expire by {@code ttl})
     * @param shared whether instances tell each other what they remembered (pub/sub), so that one
     *     instance's miss spares every instance's database query
     */
    public record Settings(Duration ttl, long maxEntries, boolean shared) {

        public Settings {
            checkArgument(ttl != null && !ttl.isNegative() && !ttl.isZero() && ttl.toMillis() > 0,
                    "negative-cache.ttl (%s) must be at least 1 ms", ttl);
            checkArgument(maxEntries >= 1, "negative-cache.max-entries (%s) must be at least 1", maxEntries);
        }
    }

    /** How long an add's mark refuses remembers of its key. */
    public static final Duration ADDED_WINDOW = MissKeys.ADDED_WINDOW;

    /**
     * A remember not sent within this of its check (a slow method, a wait for a pooled
     * connection) is not sent: the rest of {@link #ADDED_WINDOW}, 25 s, covers the way to Redis.
     */
    public static final Duration MAX_REMEMBER_DELAY = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(RememberedMisses.class);

    private final String name;
    private final FilterKeys keys;
    /** A canonical key's shard, whose slot holds its miss. */
    private final ToIntFunction<Object> shardOf;
    private final BitmapStore store;
    private final Settings settings;
    private final Duration checkTimeout;
    private final FilterEvents events;
    private final Cache<Long, Boolean> index;
    /** The scopes this instance has asked about: an add drops the key from the index under each. */
    private final ConcurrentHashMap<String, Boolean> scopes = new ConcurrentHashMap<>();

    /**
     * @param events the filter's channel, told of what this instance remembers and forgets when {@code shared}
     */
    public RememberedMisses(String name, FilterKeys keys, ToIntFunction<Object> shardOf, BitmapStore store,
            Settings settings, Duration checkTimeout, FilterEvents events) {
        this.name = name;
        this.keys = keys;
        this.shardOf = shardOf;
        this.store = store;
        this.settings = settings;
        this.checkTimeout = checkTimeout;
        this.events = events;
        this.index = Caffeine.newBuilder().maximumSize(settings.maxEntries()).expireAfterWrite(settings.ttl()).build();
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Whether {@code canonicalKey} is remembered as absent for {@code scope}: false at once when
     * the index does not point at it, otherwise Redis's answer; false when Redis fails (the call
     * goes on).
     */
    public CompletableFuture<Boolean> isRememberedAsync(Object canonicalKey, String scope) {
        if (index.estimatedSize() == 0) {
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        byte[] bytes = KeyEncoding.canonicalBytes(canonicalKey);
        long hash = indexHash(bytes, scope);
        if (index.getIfPresent(hash) == null) {
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        CompletableFuture<Boolean> confirmed;
        try {
            int shard = shardOf.applyAsInt(canonicalKey);
            confirmed = store.missRememberedAsync(MissKeys.miss(keys, shard, MissKeys.digest(bytes)), scope,
                    keys.meta(shard), checkTimeout);
        }
        catch (RuntimeException ex) {
            confirmed = CompletableFuture.failedFuture(ex);
        }
        return confirmed.handle((remembered, error) -> {
            if (error != null) {
                log.debug("Filter '{}': could not confirm a remembered miss, letting the call through: {}", name,
                        error.getMessage());
                return Boolean.FALSE;
            }
            if (!remembered) {
                index.invalidate(hash);
            }
            return remembered;
        });
    }

    /**
     * Remembers that the method guarded by the check that began at {@code checkStartedNanos}
     * ({@link System#nanoTime()}) found nothing for {@code canonicalKey}. Completes with whether
     * it was remembered: not when the method took longer than {@link #MAX_REMEMBER_DELAY}, when
     * the key was added a moment ago, when the filter has no live load, or when Redis failed or
     * did not answer within the check timeout (the caller waits for this before it returns).
     */
    public CompletableFuture<Boolean> rememberAsync(Object canonicalKey, String scope, long checkStartedNanos) {
        if (System.nanoTime() - checkStartedNanos > MAX_REMEMBER_DELAY.toNanos()) {
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        byte[] bytes = KeyEncoding.canonicalBytes(canonicalKey);
        long hash = indexHash(bytes, scope);
        String digest = MissKeys.digest(bytes);
        CompletableFuture<Boolean> remembered;
        try {
            int shard = shardOf.applyAsInt(canonicalKey);
            remembered = store.rememberMissAsync(MissKeys.miss(keys, shard, digest), scope,
                    MissKeys.added(keys, shard, digest), keys.meta(shard),
                    settings.ttl(), checkStartedNanos + MAX_REMEMBER_DELAY.toNanos());
        }
        catch (RuntimeException ex) {
            remembered = CompletableFuture.failedFuture(ex);
        }
        // The caller waits for it before it returns: it costs what a check costs at most, never a write's timeout.
        return remembered.orTimeout(checkTimeout.toNanos(), TimeUnit.NANOSECONDS).handle((done, error) -> {
            if (error != null) {
                log.debug("Filter '{}': could not remember a miss: {}", name, String.valueOf(error));
                return Boolean.FALSE;
            }
            if (done) {
                index.put(hash, Boolean.TRUE);
                if (settings.shared()) {
                    events.publishRemembered(hash);
                }
            }
            return done;
        });
    }

    /**
     * Forgets {@code canonicalKeys}, just added: marks each as added for {@link #ADDED_WINDOW},
     * then deletes its entry, in Redis; drops it from this index, and with {@code shared} tells
     * the other instances' indexes. Completes once Redis has done both, or with the store's error.
     */
    public CompletableFuture<Void> forgetAsync(Collection<?> canonicalKeys) {
        // By shard: each shard's marks and deletes go to its own slot, in the order the store keeps.
        Map<Integer, List<String>> missKeys = new TreeMap<>();
        Map<Integer, List<String>> addedKeys = new TreeMap<>();
        List<Long> hashes = new ArrayList<>(canonicalKeys.size());
        for (Object key : canonicalKeys) {
            byte[] bytes = KeyEncoding.canonicalBytes(key);
            for (String scope : scopes.keySet()) {
                long hash = indexHash(bytes, scope);
                hashes.add(hash);
                index.invalidate(hash);
            }
            String digest = MissKeys.digest(bytes);
            int shard = shardOf.applyAsInt(key);
            missKeys.computeIfAbsent(shard, any -> new ArrayList<>()).add(MissKeys.miss(keys, shard, digest));
            addedKeys.computeIfAbsent(shard, any -> new ArrayList<>()).add(MissKeys.added(keys, shard, digest));
        }
        if (missKeys.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<Void>> forgotten = new ArrayList<>(missKeys.size());
        for (Map.Entry<Integer, List<String>> shard : missKeys.entrySet()) {
            try {
                forgotten.add(store.forgetMissesAsync(shard.getValue(), addedKeys.get(shard.getKey()), ADDED_WINDOW));
            }
            catch (RuntimeException ex) {
                forgotten.add(CompletableFuture.failedFuture(ex));
            }
        }
        return CompletableFuture.allOf(forgotten.toArray(CompletableFuture[]::new)).thenRun(() -> {
            if (settings.shared() && !hashes.isEmpty()) {
                events.publishForgotten(hashes);
            }
        });
    }

    /** Another instance remembered the misses of these index hashes: worth asking Redis about. */
    public void remembered(long[] hashes) {
        for (long hash : hashes) {
            index.put(hash, Boolean.TRUE);
        }
    }

    /** Another instance added the keys of these index hashes: nothing to ask Redis about. */
    public void forgotten(long[] hashes) {
        for (long hash : hashes) {
            index.invalidate(hash);
        }
    }

    /** Empties the index, after a swap: Redis no longer confirms the old load's entries anyway. */
    public void clear() {
        index.invalidateAll();
    }

    /** Keys the index points at now (an estimate, for status and tests). */
    public long indexSize() {
        return index.estimatedSize();
    }

    /** The Redis key that remembers {@code canonicalKey}'s miss: in its shard's slot, beside that shard's {@code :meta}. */
    public String missKey(Object canonicalKey) {
        return MissKeys.miss(keys, shardOf.applyAsInt(canonicalKey), MissKeys.digest(canonicalKey));
    }

    /**
     * The index's name of a key's miss in {@code scope}; the same on every instance, since events
     * carry it. A collision only costs a round trip: Redis decides.
     */
    private long indexHash(byte[] canonicalBytes, String scope) {
        if (scopes.size() < 10_000) {
            scopes.putIfAbsent(scope, Boolean.TRUE);
        }
        return KeyEncoding.indexHash(canonicalBytes) + 0x9E3779B97F4A7C15L * scope.hashCode();
    }
}
