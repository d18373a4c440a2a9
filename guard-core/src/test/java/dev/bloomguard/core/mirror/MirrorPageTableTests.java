package dev.bloomguard.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.DelayingProxy;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisServerExtension;

/**
 * The mirror's page table (an array in front of the Caffeine cache, so that a hit costs no
 * cache lookup) against a real Redis: it may answer only from a page the cache holds now. A page
 * the cache evicted, dropped in {@link BitmapMirror#clear} or replaced by a fresh image must
 * leave the table with it, and an image read before a swap must never answer after it. Bits are
 * set straight in Redis, so that each test knows which page holds what.
 */
class MirrorPageTableTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(10_000, 0.01);
    private static final int PAGE_BYTES = 1024;
    private static final long PAGE_BITS = PAGE_BYTES * 8L;
    /** On page 0 and page 5; neither a multiple of 64, so that no lookup of them alone goes through the cache. */
    private static final long ON_FIRST_PAGE = 1001;
    private static final long ON_SIXTH_PAGE = 5 * PAGE_BITS + 1001;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static LettuceClients client;
    private static LettuceBitmapStore store;
    private static int bitmapNumber;

    @BeforeAll
    static void openStore() {
        client = LettuceClients.standalone(redis.port());
        store = LettuceBitmapStore.create(client, Duration.ofSeconds(10));
    }

    @AfterAll
    static void closeStore() {
        client.close();
    }

    @Test
    void aPageTheCacheEvictsIsNotAnsweredFromAnyMore() {
        String key = bitmap(ON_FIRST_PAGE, ON_SIXTH_PAGE);
        BitmapMirror mirror = mirror(key, PAGE_BYTES, Duration.ofMinutes(10), Runnable::run);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("first read").isEqualTo(BitmapMirror.Local.NOT_CACHED);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).isEqualTo(BitmapMirror.Local.PRESENT);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("from the table").isEqualTo(BitmapMirror.Local.PRESENT);

        // A budget of one page: the cache admits the sixth page once it is asked for more often than the first.
        for (int attempt = 0; attempt < 100 && lookup(mirror, ON_SIXTH_PAGE) != BitmapMirror.Local.PRESENT; attempt++) {
            mirror.stats();
        }
        assertThat(lookup(mirror, ON_SIXTH_PAGE)).as("the sixth page admitted").isEqualTo(BitmapMirror.Local.PRESENT);
        assertThat(mirror.stats().pages()).isEqualTo(1);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("the first page, evicted").isEqualTo(BitmapMirror.Local.NOT_CACHED);
    }

    @Test
    void clearEmptiesTheTableAndTheNextImageIsTheNewBitmaps() {
        String key = bitmap(ON_FIRST_PAGE);
        BitmapMirror mirror = mirror(key, 1 << 20, Duration.ofMinutes(10), Runnable::run);
        lookup(mirror, ON_FIRST_PAGE);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).isEqualTo(BitmapMirror.Local.PRESENT);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("from the table").isEqualTo(BitmapMirror.Local.PRESENT);

        mirror.clear();
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("just cleared").isEqualTo(BitmapMirror.Local.NOT_CACHED);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("read again").isEqualTo(BitmapMirror.Local.PRESENT);

        swap(key, ON_FIRST_PAGE + 1);
        mirror.clear();
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("just swapped").isEqualTo(BitmapMirror.Local.NOT_CACHED);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("a bit the new bitmap lacks").isEqualTo(BitmapMirror.Local.CLEAR_BIT);
        assertThat(lookup(mirror, ON_FIRST_PAGE + 1)).as("a bit of the new bitmap").isEqualTo(BitmapMirror.Local.PRESENT);
    }

    @Test
    void anImageReadBeforeASwapIsNeverAnsweredFromAfterIt() throws Exception {
        String key = bitmap(ON_FIRST_PAGE);
        AtomicLong heldReply = new AtomicLong(-1);
        ExecutorService loader = Executors.newCachedThreadPool();
        try (DelayingProxy proxy = DelayingProxy.start(redis.port(), reply -> reply == heldReply.get(),
                Duration.ofMillis(800))) {
            LettuceClients proxied = LettuceClients.standalone(proxy.port());
            try {
                LettuceBitmapStore slowReads = LettuceBitmapStore.create(proxied, Duration.ofSeconds(10));
                assertThat(slowReads.get("connected")).isEmpty();
                BitmapMirror mirror = new BitmapMirror(key, shard -> key, GEOMETRY, slowReads,
                        new MirrorSettings(1 << 20, Duration.ofMinutes(10), PAGE_BYTES, false), () -> true, loader);

                heldReply.set(proxy.replies()); // the page's GETRANGE, the next reply on that connection
                assertThat(lookup(mirror, ON_FIRST_PAGE)).isEqualTo(BitmapMirror.Local.NOT_CACHED);
                Await.until("Redis read the old page", Duration.ofSeconds(5), () -> proxy.replies() > heldReply.get());
                swap(key, ON_FIRST_PAGE + 1);
                mirror.clear();

                long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                while (System.nanoTime() < until) {
                    assertThat(lookup(mirror, ON_FIRST_PAGE)).as("a bit only the old bitmap had")
                            .isNotEqualTo(BitmapMirror.Local.PRESENT);
                    Thread.sleep(5);
                }
                Await.until("the new bitmap read", Duration.ofSeconds(5),
                        () -> lookup(mirror, ON_FIRST_PAGE + 1) == BitmapMirror.Local.PRESENT);
                assertThat(lookup(mirror, ON_FIRST_PAGE)).isEqualTo(BitmapMirror.Local.CLEAR_BIT);
            }
            finally {
                proxied.close();
                loader.shutdownNow();
            }
        }
    }

    @Test
    void aPageReadAgainReplacesTheOneInTheTable() throws Exception {
        String key = bitmap(ON_FIRST_PAGE + 1);
        BitmapMirror mirror = mirror(key, 1 << 20, Duration.ofMillis(200), Runnable::run);
        lookup(mirror, ON_FIRST_PAGE);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).isEqualTo(BitmapMirror.Local.CLEAR_BIT);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("from the table").isEqualTo(BitmapMirror.Local.CLEAR_BIT);

        redis.admin().setbit(key, ON_FIRST_PAGE, 1); // an add this mirror did not hear of
        Thread.sleep(300);
        Await.until("the page read again after refresh-after", Duration.ofSeconds(5), () -> {
            for (long offset = 0; offset < PAGE_BITS; offset += 7) {
                lookup(mirror, offset); // other keys of the page, as traffic checks them
            }
            return lookup(mirror, ON_FIRST_PAGE) == BitmapMirror.Local.PRESENT;
        });
    }

    /**
     * Adversarial review of the page table: Caffeine's {@code refresh-after} fires only on a cache
     * read, and a key whose lookups take the table never reads the cache. A page older than
     * {@code refresh-after} must be read again however its keys reach it, or an add this mirror did
     * not hear of (a swap whose publish failed) would stay missing from it for as long as no other
     * key of the page goes through the cache: with {@code trust-absent}, a real key blocked.
     */
    @Test
    void aPageOlderThanRefreshAfterIsReadAgainWhenOnlyItsOwnKeyIsChecked() throws Exception {
        String key = bitmap(ON_FIRST_PAGE + 1);
        BitmapMirror mirror = mirror(key, 1 << 20, Duration.ofMillis(200), Runnable::run);
        lookup(mirror, ON_FIRST_PAGE);
        assertThat(lookup(mirror, ON_FIRST_PAGE)).as("from the table").isEqualTo(BitmapMirror.Local.CLEAR_BIT);

        redis.admin().setbit(key, ON_FIRST_PAGE, 1); // an add this mirror did not hear of
        Thread.sleep(300);
        Await.until("the page read again after refresh-after", Duration.ofSeconds(5),
                () -> lookup(mirror, ON_FIRST_PAGE) == BitmapMirror.Local.PRESENT);
        assertThat(lookup(mirror, ON_FIRST_PAGE + 2)).as("a bit still clear").isEqualTo(BitmapMirror.Local.CLEAR_BIT);
    }

    private static BitmapMirror mirror(String key, long maxMemoryBytes, Duration refreshAfter, Executor loader) {
        return new BitmapMirror(key, shard -> key, GEOMETRY, store,
                new MirrorSettings(maxMemoryBytes, refreshAfter, PAGE_BYTES, false), () -> true, loader);
    }

    private static BitmapMirror.Local lookup(BitmapMirror mirror, long offset) {
        return mirror.lookup(0, new long[] { offset }, 1);
    }

    /** A fresh bitmap with these bits set, and the filter's last bit, so that it spans every page. */
    private static String bitmap(long... offsets) {
        String key = "page-table-" + (++bitmapNumber);
        setBits(key, offsets);
        return key;
    }

    /** As a rebuild does: the live bitmap replaced by one with only these bits. */
    private static void swap(String key, long... offsets) {
        redis.admin().del(key);
        setBits(key, offsets);
    }

    private static void setBits(String key, long... offsets) {
        for (long offset : offsets) {
            redis.admin().setbit(key, offset, 1);
        }
        redis.admin().setbit(key, GEOMETRY.markerOffset(), 1);
    }
}
