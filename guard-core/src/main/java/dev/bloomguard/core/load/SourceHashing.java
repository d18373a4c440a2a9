package dev.bloomguard.core.load;

import java.util.Iterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.warmup.BitmapBuilder;

/**
 * Reads a load's source on the calling thread and hashes on another, so that a warmup costs about
 * the longer of the two rather than their sum: reading a JDBC cursor waits on the database,
 * hashing waits on nothing. Keys travel in batches; one thread writes the bitmaps.
 */
final class SourceHashing {

    /** Keys handed from the reading thread to the hashing thread at a time. */
    private static final int BATCH = 4096;

    private SourceHashing() {
    }

    /** Sets the bits of every non-null key of {@code source} in its shard's bitmap; returns the keys read. */
    static long readInto(FilterContext filter, BitmapBuilder[] bitmaps, Iterator<?> source) {
        BlockingQueue<Object[]> batches = new ArrayBlockingQueue<>(8);
        AtomicReference<Throwable> hashingFailure = new AtomicReference<>();
        Thread hasher = new Thread(() -> {
            int hashes = filter.geometry().hashes();
            long[] offsets = new long[hashes];
            try {
                while (true) {
                    Object[] batch = batches.take();
                    if (batch.length == 0) {
                        return;
                    }
                    for (Object key : batch) {
                        if (key == null) {
                            break;
                        }
                        bitmaps[filter.place(key, offsets, 0)].setAll(offsets, 0, hashes);
                    }
                }
            }
            catch (Throwable ex) {
                hashingFailure.set(ex);
                batches.clear();
            }
        }, "bloomguard-hash-" + filter.name());
        hasher.setDaemon(true);
        hasher.start();
        long count = 0;
        try {
            Object[] batch = new Object[BATCH];
            int size = 0;
            while (source.hasNext()) {
                Object key = source.next();
                if (key != null) {
                    batch[size++] = key;
                    count++;
                    if (size == BATCH) {
                        hand(batches, batch, hashingFailure);
                        batch = new Object[BATCH];
                        size = 0;
                    }
                }
            }
            if (size > 0) {
                hand(batches, batch, hashingFailure);
            }
            hand(batches, new Object[0], hashingFailure);
            hasher.join();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading filter '" + filter.name() + "'", ex);
        }
        finally {
            if (hasher.isAlive()) {
                hasher.interrupt();
            }
        }
        if (hashingFailure.get() != null) {
            throw new IllegalStateException("hashing keys of filter '" + filter.name() + "' failed: "
                    + hashingFailure.get(), hashingFailure.get());
        }
        return count;
    }

    private static void hand(BlockingQueue<Object[]> batches, Object[] batch, AtomicReference<Throwable> failure)
            throws InterruptedException {
        while (!batches.offer(batch, 100, TimeUnit.MILLISECONDS)) {
            if (failure.get() != null) {
                throw new IllegalStateException("hashing keys failed: " + failure.get(), failure.get());
            }
        }
    }
}
