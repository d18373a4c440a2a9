package dev.bloomguard.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.warmup.BitmapBuilder;

/**
 * A Bloom filter kept as a Redis bitmap: the programmatic API, usable without Spring.
 *
 * <p>A check is one {@code BITFIELD_RO} that reads the key's k bits and the ready marker
 * together. Only a complete filter (marker set) that has a clear bit answers
 * {@link Membership#ABSENT}; a missing, half-written or unreachable filter answers
 * {@link Membership#NOT_READY} or {@link Membership#UNAVAILABLE}, and callers must let those
 * through. A load builds the bitmap in memory, uploads it to a staging key and swaps it in with
 * {@code RENAME}; adds made meanwhile are replayed onto the staging bitmap before the swap.
 *
 * <p>The one thing easy to get wrong: {@link #mightContain} is {@code false} only for
 * {@code ABSENT}. Treating "cannot tell" as "absent" would block real keys.
 */
public final class RedisBloomFilter {

    private static final Logger log = LoggerFactory.getLogger(RedisBloomFilter.class);

    /** A staging key left by a crashed load disappears by itself after this. */
    private static final Duration STAGING_EXPIRY = Duration.ofHours(1);

    private final String name;
    private final FilterGeometry geometry;
    private final FilterKeys keys;
    private final BitmapStore store;
    private final Duration checkTimeout;
    private final AddJournal journal;
    private final ReadWriteLock swapLock = new ReentrantReadWriteLock();
    private final AtomicBoolean loading = new AtomicBoolean();
    private volatile LoadReport lastLoad;

    private RedisBloomFilter(Builder builder) {
        this.name = builder.name;
        this.geometry = builder.geometry;
        this.keys = FilterKeys.of(builder.keyPrefix, builder.name, builder.geometry);
        this.store = builder.store;
        this.checkTimeout = builder.checkTimeout;
        this.journal = new AddJournal(builder.journalRetention.toNanos(), builder.journalCapacity);
    }

    public static Builder builder(String name, FilterGeometry geometry, BitmapStore store) {
        return new Builder(name, geometry, store);
    }

    public String name() {
        return name;
    }

    public FilterGeometry geometry() {
        return geometry;
    }

    public FilterKeys keys() {
        return keys;
    }

    /** What the filter says about {@code key}, in one Redis round trip. Never throws for Redis failures. */
    public Membership check(Object key) {
        int hashes = geometry.hashes();
        long[] offsets = new long[hashes + 1];
        BitPositions.fill(key, geometry.bits(), hashes, offsets, 0);
        offsets[hashes] = geometry.markerOffset();
        BitSet set;
        try {
            set = store.readBits(keys.live(), offsets, offsets.length, checkTimeout);
        }
        catch (BitmapStoreException ex) {
            log.debug("Filter '{}': check failed: {}", name, ex.getMessage());
            return Membership.UNAVAILABLE;
        }
        if (!set.get(hashes)) {
            return Membership.NOT_READY;
        }
        return set.nextClearBit(0) >= hashes ? Membership.PRESENT : Membership.ABSENT;
    }

    /**
     * What the filter says about each of {@code keys}, in iteration order, in one Redis round trip.
     * Null elements answer {@link Membership#PRESENT}: they are never checked, so never blocked.
     */
    public List<Membership> checkAll(Collection<?> keys) {
        int hashes = geometry.hashes();
        List<Object> present = new ArrayList<>(keys.size());
        for (Object key : keys) {
            if (key != null) {
                present.add(key);
            }
        }
        long[] offsets = new long[present.size() * hashes + 1];
        for (int i = 0; i < present.size(); i++) {
            BitPositions.fill(present.get(i), geometry.bits(), hashes, offsets, i * hashes);
        }
        int marker = offsets.length - 1;
        offsets[marker] = geometry.markerOffset();
        Membership undecided = null;
        BitSet set = null;
        try {
            set = store.readBits(this.keys.live(), offsets, offsets.length, checkTimeout);
            if (!set.get(marker)) {
                undecided = Membership.NOT_READY;
            }
        }
        catch (BitmapStoreException ex) {
            log.debug("Filter '{}': batch check failed: {}", name, ex.getMessage());
            undecided = Membership.UNAVAILABLE;
        }
        List<Membership> result = new ArrayList<>(keys.size());
        int index = 0;
        for (Object key : keys) {
            if (key == null) {
                result.add(Membership.PRESENT);
            }
            else if (undecided != null) {
                result.add(undecided);
                index++;
            }
            else {
                int from = index * hashes;
                result.add(set.nextClearBit(from) >= from + hashes ? Membership.PRESENT : Membership.ABSENT);
                index++;
            }
        }
        return result;
    }

    /** False only when the key is definitely absent; "cannot tell" is {@code true}. */
    public boolean mightContain(Object key) {
        return check(key) != Membership.ABSENT;
    }

    /**
     * Adds {@code key}: its bits are set in Redis before this returns.
     *
     * @throws BitmapStoreException when Redis fails; the key may then be missing until the next load
     */
    public void add(Object key) {
        Objects.requireNonNull(key, "key");
        writeBits(BitPositions.of(key, geometry.bits(), geometry.hashes()));
    }

    /** Adds every non-null key of {@code keys} in one round trip. */
    public void addAll(Collection<?> keys) {
        int hashes = geometry.hashes();
        long[] offsets = new long[keys.size() * hashes];
        int count = 0;
        for (Object key : keys) {
            if (key != null) {
                BitPositions.fill(key, geometry.bits(), hashes, offsets, count);
                count += hashes;
            }
        }
        if (count > 0) {
            writeBits(count == offsets.length ? offsets : java.util.Arrays.copyOf(offsets, count));
        }
    }

    private void writeBits(long[] offsets) {
        swapLock.readLock().lock();
        try {
            journal.record(offsets);
            store.setBits(keys.live(), offsets, offsets.length);
        }
        finally {
            swapLock.readLock().unlock();
        }
    }

    /** Loads the filter from a stream of keys; closes the stream. See {@link #load(Iterator)}. */
    public LoadReport load(Stream<?> source) {
        try (source) {
            return load(source.iterator());
        }
    }

    /**
     * Replaces the filter with one built from {@code source} plus every add made while this runs:
     * the bitmap is built in memory, uploaded to a staging key, and swapped in with one
     * {@code RENAME}. Checks keep reading the old filter until the swap. Null keys are skipped.
     *
     * @throws IllegalStateException when a load of this filter is already running in this process
     * @throws BitmapStoreException when Redis fails; the live filter is then left as it was
     */
    public LoadReport load(Iterator<?> source) {
        if (!loading.compareAndSet(false, true)) {
            throw new IllegalStateException("filter '" + name + "' is already loading");
        }
        long started = System.nanoTime();
        long since = journal.pin();
        String staging = keys.newStaging();
        try {
            BitmapBuilder bitmap = BitmapBuilder.forGeometry(geometry);
            long count = readInto(bitmap, source);
            long applied = 0;
            long replayed = 0;
            for (AddJournal.Entry entry : journal.since(since, applied)) {
                bitmap.setAll(entry.offsets(), 0, entry.offsets().length);
                applied = Math.max(applied, entry.sequence());
                replayed++;
            }
            bitmap.markComplete();
            store.writeBitmap(staging, bitmap.bytes(), STAGING_EXPIRY);
            swapLock.writeLock().lock();
            try {
                for (AddJournal.Entry entry : journal.since(since, applied)) {
                    store.setBits(staging, entry.offsets(), entry.offsets().length);
                    replayed++;
                }
                store.persist(staging);
                store.rename(staging, keys.live());
            }
            finally {
                swapLock.writeLock().unlock();
            }
            LoadReport report = new LoadReport(name, count, replayed, Duration.ofNanos(System.nanoTime() - started),
                    Instant.now());
            lastLoad = report;
            return report;
        }
        catch (RuntimeException ex) {
            discard(staging);
            throw ex;
        }
        finally {
            journal.unpin();
            loading.set(false);
        }
    }

    private long readInto(BitmapBuilder bitmap, Iterator<?> source) {
        int hashes = geometry.hashes();
        long bits = geometry.bits();
        long[] offsets = new long[hashes];
        long count = 0;
        while (source.hasNext()) {
            Object key = source.next();
            if (key != null) {
                BitPositions.fill(key, bits, hashes, offsets, 0);
                bitmap.setAll(offsets, 0, hashes);
                count++;
            }
        }
        return count;
    }

    private void discard(String staging) {
        try {
            store.delete(staging);
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not delete staging key {} ({}); it expires by itself", name, staging,
                    ex.getMessage());
        }
    }

    public boolean isLoading() {
        return loading.get();
    }

    /** The last load this instance completed, if any. */
    public Optional<LoadReport> lastLoad() {
        return Optional.ofNullable(lastLoad);
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + name + ", " + geometry + ", key=" + keys.live() + "]";
    }

    /** Builds a {@link RedisBloomFilter}; every setting has a default but the name, geometry and store. */
    public static final class Builder {

        private final String name;
        private final FilterGeometry geometry;
        private final BitmapStore store;
        private String keyPrefix = "bg";
        private Duration checkTimeout = Duration.ofMillis(50);
        private Duration journalRetention = Duration.ofMinutes(5);
        private int journalCapacity = 100_000;

        private Builder(String name, FilterGeometry geometry, BitmapStore store) {
            checkArgument(name != null && !name.isBlank(), "filter name must not be blank");
            checkArgument(geometry != null, "geometry of filter '%s' must not be null", name);
            checkArgument(store != null, "store of filter '%s' must not be null", name);
            this.name = name;
            this.geometry = geometry;
            this.store = store;
        }

        /** Namespace of the filter's Redis keys; default {@code bg}. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** A check slower than this answers {@link Membership#UNAVAILABLE}; default 50 ms. */
        public Builder checkTimeout(Duration checkTimeout) {
            checkArgument(checkTimeout != null && checkTimeout.toNanos() > 0, "check timeout (%s) must be positive",
                    checkTimeout);
            this.checkTimeout = checkTimeout;
            return this;
        }

        /**
         * How far back a load replays adds (default 5 minutes): longer than the longest
         * transaction that adds a key before it commits.
         */
        public Builder journalRetention(Duration journalRetention) {
            checkArgument(journalRetention != null && !journalRetention.isNegative(),
                    "journal retention (%s) must not be negative", journalRetention);
            this.journalRetention = journalRetention;
            return this;
        }

        /** How many recent adds are kept for replay outside a load; default 100,000. */
        public Builder journalCapacity(int journalCapacity) {
            checkArgument(journalCapacity >= 0, "journal capacity (%s) must not be negative", journalCapacity);
            this.journalCapacity = journalCapacity;
            return this;
        }

        public RedisBloomFilter build() {
            return new RedisBloomFilter(this);
        }
    }
}
