package dev.bloomguard.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Latency and throughput of one approach: a single thread timing every call, then several
 * threads for a fixed time. Keys alternate present and absent (50% / 50%).
 */
final class Latency {

    /** One round of one approach. */
    record Round(long p50Nanos, long p99Nanos, double opsPerSecond) {
    }

    private final long presentIds;
    private final long absentBase;

    /**
     * @param presentIds ids 1..presentIds are in every filter
     * @param absentBase ids above this were never added
     */
    Latency(long presentIds, long absentBase) {
        this.presentIds = presentIds;
        this.absentBase = absentBase;
    }

    long idFor(long sequence) {
        long slot = Math.floorMod(sequence * 0x9E3779B97F4A7C15L, presentIds) + 1;
        return (sequence & 1) == 0 ? slot : absentBase + slot;
    }

    /**
     * One thread, the approaches taking turns call by call (each round trip follows a different
     * approach's, in rotating order), so that each sees the same machine: on a small VM the
     * loopback round trip itself drifts between roughly 30 and 100 µs, and measuring the
     * approaches one after the other, or in fixed order, turns that drift into differences.
     */
    Map<String, Round> interleaved(List<CheckApproach> approaches, int warmupOps, int measuredOps)
            throws Exception {
        for (CheckApproach approach : approaches) {
            for (int i = 0; i < warmupOps; i++) {
                approach.contains(idFor(i));
            }
        }
        int count = approaches.size();
        long[][] nanos = new long[count][measuredOps];
        long[] busy = new long[count];
        for (int i = 0; i < measuredOps; i++) {
            long id = idFor(warmupOps + i);
            for (int turn = 0; turn < count; turn++) {
                int a = (i + turn) % count;
                long before = System.nanoTime();
                approaches.get(a).contains(id);
                long elapsed = System.nanoTime() - before;
                nanos[a][i] = elapsed;
                busy[a] += elapsed;
            }
        }
        Map<String, Round> rounds = new LinkedHashMap<>();
        for (int a = 0; a < count; a++) {
            long[] sorted = Stats.sorted(nanos[a]);
            rounds.put(approaches.get(a).name(), new Round(Stats.percentile(sorted, 50), Stats.percentile(sorted, 99),
                    measuredOps / (busy[a] / 1e9)));
        }
        return rounds;
    }

    Round threads(CheckApproach approach, int threadCount, long warmupMillis, long measureMillis) throws Exception {
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean running = new AtomicBoolean(true);
        List<long[]> samples = new ArrayList<>();
        List<int[]> counts = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(threadCount);
        for (int t = 0; t < threadCount; t++) {
            long[] latencies = new long[4_000_000];
            int[] count = new int[1];
            samples.add(latencies);
            counts.add(count);
            long offset = 1_000_000_000L * (t + 1);
            Thread thread = new Thread(() -> {
                try {
                    long sequence = offset;
                    while (running.get()) {
                        long before = System.nanoTime();
                        approach.contains(idFor(sequence++));
                        long elapsed = System.nanoTime() - before;
                        if (measuring.get() && count[0] < latencies.length) {
                            latencies[count[0]++] = elapsed;
                        }
                    }
                }
                catch (Throwable ex) {
                    failures.add(ex);
                }
                finally {
                    done.countDown();
                }
            }, "bench-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        Thread.sleep(warmupMillis);
        measuring.set(true);
        long started = System.nanoTime();
        Thread.sleep(measureMillis);
        measuring.set(false);
        double seconds = (System.nanoTime() - started) / 1e9;
        running.set(false);
        done.await();
        if (!failures.isEmpty()) {
            throw new IllegalStateException(approach.name() + " failed under " + threadCount + " threads", failures.get(0));
        }
        int total = counts.stream().mapToInt(count -> count[0]).sum();
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < threadCount; t++) {
            System.arraycopy(samples.get(t), 0, all, at, counts.get(t)[0]);
            at += counts.get(t)[0];
        }
        long[] sorted = Stats.sorted(all);
        return new Round(Stats.percentile(sorted, 50), Stats.percentile(sorted, 99), total / seconds);
    }
}
