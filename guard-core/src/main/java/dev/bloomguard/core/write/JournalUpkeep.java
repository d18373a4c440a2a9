package dev.bloomguard.core.write;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.bloomguard.core.context.FilterContext;

/**
 * Keeps each shard's adds journal within its retention and capacity (see
 * {@code BitmapStore#maintainJournal}): every add stays at least the retention and at most about
 * twice that.
 */
public final class JournalUpkeep {

    private final FilterContext filter;
    private final Duration retention;
    private final long capacity;
    private final AtomicBoolean maintaining = new AtomicBoolean();

    public JournalUpkeep(FilterContext filter, Duration retention, long capacity) {
        this.filter = filter;
        this.retention = retention;
        this.capacity = capacity;
    }

    /**
     * Rotates and trims every shard's journal now.
     *
     * @return adds dropped beyond the capacity; the swaps of the next retention then merge the
     *         live bitmap, so that dropping them loses no key
     */
    public long maintain() {
        long dropped = 0;
        for (int shard = 0; shard < filter.geometry().shards(); shard++) {
            dropped += filter.store().maintainJournal(filter.keys().journalKeys(shard), retention, capacity);
        }
        if (dropped > 0) {
            filter.log().warn("Filter '{}': {} adds left the journal beyond its capacity of {}; the loads of the next {}"
                    + " keep every bit of the live filter so that none is lost (raise the journal capacity if this"
                    + " recurs)", filter.name(), dropped, capacity, retention);
        }
        return dropped;
    }

    /** An add found a journal of {@code length}: trims it in the background when full, once at a time. */
    boolean maintainIfFull(long length) {
        if (length <= capacity || !maintaining.compareAndSet(false, true)) {
            return false;
        }
        filter.background().execute(() -> {
            try {
                maintain();
            }
            catch (RuntimeException ex) {
                filter.log().warn("Filter '{}': could not trim the adds journal: {}", filter.name(), ex.getMessage());
            }
            finally {
                maintaining.set(false);
            }
        });
        return true;
    }

    public Duration retention() {
        return retention;
    }
}
