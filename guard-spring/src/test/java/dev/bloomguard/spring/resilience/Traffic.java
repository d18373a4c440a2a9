package dev.bloomguard.spring.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.bloomguard.spring.BloomGuardRejectedException;

/**
 * Guarded calls for present keys from several threads until closed, recording what must never
 * happen: a present key blocked, or any other exception reaching the caller. Calls for absent
 * keys are mixed in so both paths run; their rejections are expected.
 */
final class Traffic implements AutoCloseable {

    private final GuardedApp.Directory directory;
    private final List<Long> present;
    private final List<Long> absent;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean paused = new AtomicBoolean();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong presentBlocked = new AtomicLong();
    private final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

    Traffic(GuardedApp.Directory directory, List<Long> present, List<Long> absent, int threadCount) {
        this.directory = directory;
        this.present = List.copyOf(present);
        this.absent = List.copyOf(absent);
        for (int i = 0; i < threadCount; i++) {
            Thread thread = new Thread(this::run, "traffic-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    private void run() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running.get()) {
            inFlight.incrementAndGet();
            if (paused.get()) {
                inFlight.decrementAndGet();
                LockSupport.parkNanos(1_000_000);
                continue;
            }
            boolean askPresent = absent.isEmpty() || random.nextInt(4) != 0;
            long id = askPresent ? present.get(random.nextInt(present.size())) : absent.get(random.nextInt(absent.size()));
            try {
                directory.find(id);
            }
            catch (BloomGuardRejectedException ex) {
                if (askPresent) {
                    presentBlocked.incrementAndGet();
                }
            }
            catch (Throwable ex) {
                unexpected.add(ex);
            }
            calls.incrementAndGet();
            inFlight.decrementAndGet();
        }
    }

    /** Stops the threads' calls (they park until resumed) and waits for calls in flight, so a test can count its own. */
    void pause() {
        paused.set(true);
        while (inFlight.get() > 0) {
            Thread.onSpinWait();
        }
    }

    void resume() {
        paused.set(false);
    }

    long calls() {
        return calls.get();
    }

    long presentBlocked() {
        return presentBlocked.get();
    }

    List<Throwable> unexpected() {
        return List.copyOf(unexpected);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(5_000);
        }
    }
}
