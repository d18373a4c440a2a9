package dev.bloomguard.spring.actuate;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.spring.warmup.RepositoryKeySource;

/**
 * A key source whose reads wait at a gate the test opens: a rebuild far longer than a cooldown.
 * It counts its reads, each one a rebuild that reached the database.
 */
final class GatedKeys {

    private final AtomicInteger reads = new AtomicInteger();
    private volatile CountDownLatch gate = new CountDownLatch(1);

    /** Ids 1 to 100 for {@code filter}, once the gate is open. */
    KeySource source(String filter) {
        return RepositoryKeySource.of(filter, () -> {
            reads.incrementAndGet();
            try {
                gate.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return LongStream.rangeClosed(1, 100).boxed();
        });
    }

    int reads() {
        return reads.get();
    }

    /** No reads yet, the gate closed: for a test that starts afresh. */
    void reset() {
        reads.set(0);
        gate = new CountDownLatch(1);
    }

    void open() {
        gate.countDown();
    }
}
