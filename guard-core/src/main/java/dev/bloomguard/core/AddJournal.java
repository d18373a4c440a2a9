package dev.bloomguard.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bit offsets of recent adds, kept so that a bulk load can replay them onto its staging
 * bitmap before the swap. Without it a key added while the warmup query runs, or inserted by a
 * transaction that committed after the query's snapshot was taken, would be missing from the
 * swapped-in filter: a false negative.
 *
 * <p>Unpinned, entries are kept for {@code retention} and at most {@code capacity} of them.
 * While a load runs it pins the journal at its start minus the retention, and nothing recorded
 * after the pin is dropped until the load unpins. Replay is idempotent (setting a set bit
 * changes nothing), so an entry applied twice is harmless.
 */
final class AddJournal {

    record Entry(long sequence, long recordedNanos, long[] offsets) {
    }

    private static final long UNPINNED = Long.MAX_VALUE;

    private final ConcurrentLinkedDeque<Entry> entries = new ConcurrentLinkedDeque<>();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicInteger size = new AtomicInteger();
    private final Object appendLock = new Object();
    private final long retentionNanos;
    private final int capacity;
    private volatile long pinnedNanos = UNPINNED;
    private volatile boolean pinned;

    AddJournal(long retentionNanos, int capacity) {
        this.retentionNanos = retentionNanos;
        this.capacity = capacity;
    }

    void record(long[] offsets) {
        long now;
        // Sequence, time and position are taken together so the deque is in sequence order: a load
        // that has seen sequence s in since() has seen every earlier one, and replays only later ones
        // under the swap lock. Numbered apart from the append, an add racing the first replay was lost.
        synchronized (appendLock) {
            now = System.nanoTime();
            entries.addLast(new Entry(sequence.incrementAndGet(), now, offsets));
        }
        size.incrementAndGet();
        trim(now);
    }

    /** Keeps every entry recorded from one retention before now on, and returns that instant. */
    long pin() {
        long since = System.nanoTime() - retentionNanos;
        pinnedNanos = since;
        pinned = true;
        return since;
    }

    void unpin() {
        pinned = false;
        pinnedNanos = UNPINNED;
        trim(System.nanoTime());
    }

    /** Entries recorded at or after {@code sinceNanos} whose sequence is above {@code afterSequence}. */
    List<Entry> since(long sinceNanos, long afterSequence) {
        List<Entry> result = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.recordedNanos() - sinceNanos >= 0 && entry.sequence() > afterSequence) {
                result.add(entry);
            }
        }
        return result;
    }

    private void trim(long now) {
        Entry head;
        while ((head = entries.peekFirst()) != null && droppable(head, now)) {
            if (entries.remove(head)) {
                size.decrementAndGet();
            }
        }
    }

    private boolean droppable(Entry head, long now) {
        if (pinned && head.recordedNanos() - pinnedNanos >= 0) {
            return false;
        }
        return size.get() > capacity || now - head.recordedNanos() > retentionNanos;
    }
}
