package dev.bloomguard.core.mirror;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;

/**
 * A local copy of a filter's Redis bitmap, in pages that Caffeine keeps within a memory budget
 * and re-reads from Redis ({@code GETRANGE}) after a while. It answers "present" from memory;
 * it never answers "absent" by itself (unless told to trust it): a clear bit here may only mean
 * the page is older than an add made on another instance, so the caller confirms with Redis.
 * Adds reach it at once from this instance and promptly from the others (pub/sub); a swap empties it.
 *
 * <p>The thing not to get wrong: pages are read racily. A reader may miss a bit another thread
 * is setting; that is safe, because a missed bit only ever leads to asking Redis. It is not safe
 * for {@code trust-absent}, which blocks on a clear bit: a page whose {@code GETRANGE} was read
 * before an add, and cached after it, lacks the add's bits until its next refresh. So every add
 * (and every swap) moves a counter of the pages it touches, a page remembers the counter it
 * was read under, and a clear bit is trusted ({@link #knowsClear}) only from a page read since.
 * Adds made on other instances are known only by their events: a clear bit is trusted only while
 * this instance hears them ({@code hearing}), and the owner empties the mirror ({@link #clear}) each
 * time its subscription is confirmed again, since what was published while it was away is lost.
 *
 * <p>A hit reads its pages from a page table in front of the cache (a cache lookup per bit was
 * most of a hit's cost): see {@link PageTable} for how it stays within what the cache holds.
 */
public final class BitmapMirror {

    /** What memory alone says about a key. */
    public enum Local {
        /** Every bit is set in cached pages. */
        PRESENT,
        /** A cached page has a clear bit: absent, or an add this copy has not seen yet. */
        CLEAR_BIT,
        /** A page is not cached (it is being loaded now). */
        NOT_CACHED
    }

    private static final Logger log = LoggerFactory.getLogger(BitmapMirror.class);

    private final String name;
    private final IntFunction<String> shardKey;
    private final BitmapStore store;
    private final MirrorSettings settings;
    private final BooleanSupplier hearing;
    private final long pageBits;
    private final long pagesPerShard;
    private final long refreshAfterNanos;
    private final LoadingCache<Long, Page> pages;
    private final PageTable table;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder confirmed = new LongAdder();
    /** Adds applied, per stripe of pages (a page's index modulo their number): see the class comment. */
    private final AtomicLongArray applied = new AtomicLongArray(STRIPES);
    /** Swaps seen ({@link #clear}): a page read before one holds the old bitmap. */
    private final AtomicLong swaps = new AtomicLong();

    private static final int STRIPES = 1024;
    private static final long READ_AGAIN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * @param shardKey the Redis key of each shard's live bitmap
     * @param hearing whether every add other instances publish reaches {@link #apply} now
     */
    public BitmapMirror(String name, IntFunction<String> shardKey, FilterGeometry geometry,
            BitmapStore store, MirrorSettings settings, BooleanSupplier hearing, Executor loader) {
        this.name = name;
        this.shardKey = shardKey;
        this.store = store;
        this.settings = settings;
        this.hearing = hearing;
        this.pageBits = settings.pageBytes() * 8L;
        this.pagesPerShard = geometry.markerOffset() / pageBits + 1;
        this.refreshAfterNanos = settings.refreshAfterNanos();
        long lastPage = pagesPerShard * geometry.shards() - 1;
        this.table = new PageTable(lastPage + 1, name);
        this.pages = Caffeine.newBuilder()
                .maximumWeight(settings.maxMemoryBytes())
                .weigher((Long index, Page page) -> page.bytes.length)
                .evictionListener(table::evicted)
                .refreshAfterWrite(settings.refreshAfter())
                .executor(loader)
                .build(new CacheLoader<Long, Page>() {
                    @Override
                    public Page load(Long index) {
                        return BitmapMirror.this.load(index, lastPage);
                    }

                    /** A page that cannot be re-read (Redis down) stays as it was, quietly: it only ever says "present" for bits Redis had. */
                    @Override
                    public Page reload(Long index, Page previous) {
                        try {
                            Page fresh = load(index);
                            previous.replaced();
                            return fresh;
                        }
                        catch (RuntimeException ex) {
                            log.debug("Filter '{}': mirror page {} not refreshed: {}", name, index, ex.getMessage());
                            return previous;
                        }
                    }
                });
    }

    private Page load(long index, long lastPage) {
        if (index > lastPage) {
            throw new IllegalArgumentException("page " + index + " is past the end of filter '" + name + "'");
        }
        long start = (index % pagesPerShard) * settings.pageBytes();
        // Before the read: an add applied while it is on its way makes this image one to doubt.
        long appliedBefore = applied.get(stripe(index));
        long swapsBefore = swaps.get();
        byte[] bytes = store.getRange(shardKey.apply((int) (index / pagesPerShard)), start, start + settings.pageBytes() - 1);
        return new Page(settings.pageBytes(), bytes, appliedBefore, swapsBefore);
    }

    /**
     * The cached page at {@code index}, or null when none read since the last {@link #clear}: from
     * the table ({@link PageTable#throughCache}) while younger than {@code refresh-after}, else from
     * the cache, whose read is what reads it again (an add not heard of stays out of it no longer).
     */
    private Page cached(long index, long swapsNow, boolean throughCache, long now) {
        if (!throughCache) {
            Page page = table.get(index);
            if (page != null && page.swapsSeen == swapsNow && now - page.readAt < refreshAfterNanos) {
                return page;
            }
        }
        Page page = pages.getIfPresent(index);
        if (page == null || page.swapsSeen != swapsNow) {
            return null;
        }
        table.keep(index, page);
        return page;
    }

    /**
     * Looks {@code offsets[0 .. count)} of {@code shard} up in memory; pages not cached are
     * requested in the background ({@link Local#NOT_CACHED}). */
    public Local lookup(int shard, long[] offsets, int count) {
        boolean allCached = true;
        boolean clear = false;
        long firstPage = shard * pagesPerShard;
        long swapsNow = swaps.get();
        long now = System.nanoTime();
        boolean throughCache = count > 0 && PageTable.throughCache(offsets[0]);
        for (int i = 0; i < count; i++) {
            long offset = offsets[i];
            long index = firstPage + offset / pageBits;
            Page page = cached(index, swapsNow, throughCache, now);
            if (page == null) {
                allCached = false;
                if (store.circuitState() != CircuitBreaker.State.OPEN) {
                    pages.refresh(index);
                }
                continue;
            }
            if (!page.get(offset % pageBits)) {
                clear = true;
            }
        }
        if (!allCached) {
            misses.increment();
            return Local.NOT_CACHED;
        }
        if (clear) {
            confirmed.increment();
            return Local.CLEAR_BIT;
        }
        hits.increment();
        return Local.PRESENT;
    }

    /**
     * True only when the page holding {@code offset} of {@code shard} is cached and has the bit set;
     * a page not cached is requested in the background. What {@code trust-absent} needs to know the
     * filter is complete (its marker set) before it blocks from memory: a missing or flushed
     * filter reads as all zeros, which must never mean "absent".
     */
    public boolean knowsSet(int shard, long offset) {
        long index = shard * pagesPerShard + offset / pageBits;
        Page page = cached(index, swaps.get(), false, System.nanoTime());
        if (page == null) {
            if (store.circuitState() != CircuitBreaker.State.OPEN) {
                pages.refresh(index);
            }
            return false;
        }
        return page.get(offset % pageBits);
    }

    /**
     * True only when {@code offsets[0 .. count)} of {@code shard} lie in cached pages, one of the
     * bits is clear, no add or swap this mirror was told of came since those pages were read, and
     * it hears other instances now: a clear bit that {@code trust-absent} may block on.
     */
    public boolean knowsClear(int shard, long[] offsets, int count) {
        if (!hearing.getAsBoolean()) {
            return false;
        }
        long firstPage = shard * pagesPerShard;
        long swapsNow = swaps.get();
        long now = System.nanoTime();
        boolean clear = false;
        for (int i = 0; i < count; i++) {
            long index = firstPage + offsets[i] / pageBits;
            Page page = cached(index, swapsNow, false, now);
            if (page == null) {
                return false;
            }
            if (page.appliedSeen != applied.get(stripe(index))) {
                readAgainSoon(index, page);
                return false;
            }
            clear |= !page.get(offsets[i] % pageBits);
        }
        return clear;
    }

    /**
     * Asks for a fresh image of a page whose clear bits are not trusted (an add or a swap came
     * while it was read), at most once a second per page: otherwise it would stay untrusted, and
     * every check of its keys would go to Redis, until its next {@code refresh-after}.
     */
    private void readAgainSoon(long index, Page page) {
        long now = System.nanoTime();
        long last = page.readAgainAskedAt;
        if ((last == 0 || now - last > READ_AGAIN_EVERY_NANOS) && store.circuitState() != CircuitBreaker.State.OPEN) {
            page.readAgainAskedAt = now;
            pages.refresh(index);
        }
    }

    /**
     * Sets bits that are known set in Redis (an add, or a key Redis confirmed present), in cached
     * pages only; pages being read meanwhile are not trusted for clear bits until read again. A
     * bit a cached page already has moves no counter: Redis had it before that page was read, so
     * before any read still under way (bits are only cleared by a swap, which {@link #clear} counts).
     */
    public void apply(int shard, long[] offsets, int from, int count) {
        long firstPage = shard * pagesPerShard;
        for (int i = from; i < from + count; i++) {
            long offset = offsets[i];
            long index = firstPage + offset / pageBits;
            Page page = pages.getIfPresent(index);
            if (page == null || !page.get(offset % pageBits)) {
                applied.incrementAndGet(stripe(index));
                if (page != null) {
                    page.set(offset % pageBits);
                }
            }
        }
    }

    private static int stripe(long pageIndex) {
        return (int) (pageIndex % STRIPES);
    }

    /** Drops every page: the live bitmap was replaced, or adds may have been published unheard. */
    public void clear() {
        swaps.incrementAndGet();
        pages.invalidateAll();
        table.clear();
        // Again: a page loaded meanwhile, kept in the table by a checker after table.clear(), is old.
        swaps.incrementAndGet();
        log.debug("Filter '{}': mirror cleared (a swap, or adds that may not have been heard)", name);
    }

    public boolean trustsAbsent() {
        return settings.trustAbsent();
    }

    public MirrorStats stats() {
        pages.cleanUp();
        return new MirrorStats(pages.estimatedSize(), pages.policy().eviction().map(eviction -> eviction.weightedSize()
                .orElse(0L)).orElse(0L), settings.maxMemoryBytes(), hits.sum(), misses.sum(), confirmed.sum(),
                hearing.getAsBoolean());
    }

    public Duration refreshAfter() {
        return settings.refreshAfter();
    }
}
