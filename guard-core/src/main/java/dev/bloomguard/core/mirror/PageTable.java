package dev.bloomguard.core.mirror;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.util.concurrent.atomic.AtomicReferenceArray;

import com.github.benmanes.caffeine.cache.RemovalCause;

/**
 * The mirror's pages by index, in front of its Caffeine cache: a hit reads an array slot where a
 * cache lookup would hash a boxed index. It costs one reference per page of the whole filter
 * (4 or 8 bytes per page of 64 KiB by default), cached or not.
 *
 * <p>The thing not to get wrong: the table may only answer from a page the cache holds. It is
 * filled from the cache's own answers ({@link #keep}), and a page leaves it before or as it
 * leaves the cache: evicted ({@link #evicted}, as the cache removes it), replaced by a fresh
 * image ({@link Page#replaced}, before the cache installs that) or dropped by a swap
 * ({@link #clear}). Each marks the page gone, so that a slot written with a page just as the
 * cache let it go is never read: the table treats a gone page as an empty slot and empties it. A page read before a swap is kept out by its caller,
 * which compares the page's swap count with the mirror's.
 */
final class PageTable {

    private final AtomicReferenceArray<Page> slots;

    PageTable(long pages, String filterName) {
        checkArgument(pages <= Integer.MAX_VALUE - 8, "filter '%s' has %s mirror pages, more than a page table can index;"
                + " use larger pages", filterName, pages);
        this.slots = new AtomicReferenceArray<>((int) pages);
    }

    /**
     * Whether a lookup goes through the cache for its pages although the table has them: one in
     * 64, chosen by its first offset (uniform over the bits). The cache must keep seeing reads, as
     * its eviction weighs pages by them and its {@code refresh-after} fires on one; a page holds
     * thousands of keys, so each page's share of the reads still reaches it.
     */
    static boolean throughCache(long firstOffset) {
        return (firstOffset & 63) == 0;
    }

    /** The page at {@code index}, or null when the table has none the cache still holds. */
    Page get(long index) {
        Page page = slots.get((int) index);
        if (page != null && page.gone()) {
            slots.compareAndSet((int) index, page, null);
            return null;
        }
        return page;
    }

    /**
     * Keeps {@code page}, which the cache just returned for {@code index}. Marking a page gone
     * comes before the slot is emptied ({@link #evicted}), so either that emptying sees this
     * write, or the check after it sees the mark.
     */
    void keep(long index, Page page) {
        if (slots.get((int) index) == page) {
            return;
        }
        slots.set((int) index, page);
        if (page.gone()) {
            slots.compareAndSet((int) index, page, null);
        }
    }

    /** The cache's eviction listener: it runs as the cache removes the entry. */
    void evicted(Long index, Page page, RemovalCause cause) {
        if (index != null && page != null) {
            page.replaced();
            slots.compareAndSet(index.intValue(), page, null);
        }
    }

    /** The cache dropped every page. */
    void clear() {
        for (int index = 0; index < slots.length(); index++) {
            Page page = slots.getAndSet(index, null);
            if (page != null) {
                page.replaced();
            }
        }
    }
}
