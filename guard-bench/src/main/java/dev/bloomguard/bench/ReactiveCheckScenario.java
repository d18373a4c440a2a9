package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.ABSENT_BASE;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.log;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;

/** The "Non-blocking check (Mono/Flux)" section. */
record ReactiveCheckScenario(SuiteSettings settings, Report report) {

    /**
     * The non-blocking check that guards {@code Mono}/{@code Flux} methods against the blocking
     * one: the same single call awaited (what one request pays), and what one thread achieves
     * with many checks in flight against eight threads that each wait for their reply.
     */
    void run(RedisBloomFilter filter, CheckApproach blocking) throws Exception {
        log("Non-blocking check");
        Latency latency = new Latency(PRESENT, ABSENT_BASE);
        CheckApproach nonBlocking = new CheckApproach() {
            @Override
            public String name() {
                return "bloom-guard checkAsync, awaited";
            }

            @Override
            public boolean contains(long id) {
                return filter.checkAsync(id).join() != Membership.ABSENT;
            }
        };
        List<Double> blockingP50 = new ArrayList<>();
        List<Double> asyncP50 = new ArrayList<>();
        List<Double> blockingEight = new ArrayList<>();
        Map<Integer, List<Double>> inFlight = new LinkedHashMap<>();
        int[] windows = { 1, 16, 64, 256 };
        for (int round = 0; round < settings.rounds(); round++) {
            Map<String, Latency.Round> single = latency.interleaved(List.of(blocking, nonBlocking), settings.warmupOps(),
                    settings.singleOps());
            blockingP50.add(single.get(blocking.name()).p50Nanos() / 1000.0);
            asyncP50.add(single.get(nonBlocking.name()).p50Nanos() / 1000.0);
            blockingEight.add(latency.threads(blocking, 8, settings.threadWarmupMillis(), settings.threadMeasureMillis())
                    .opsPerSecond());
            for (int window : windows) {
                inFlight.computeIfAbsent(window, key -> new ArrayList<>()).add(inFlightThroughput(filter, latency, window));
            }
        }
        double latencyRatio = Stats.median(asyncP50) / Stats.median(blockingP50);
        double eightThreads = Stats.median(blockingEight);
        double oneThread64 = Stats.median(inFlight.get(64));
        report.target("non-blocking check: one awaited call within 1.1× of the blocking check (p50)",
                latencyRatio, String.format("%.2f×", latencyRatio), latencyRatio <= 1.1);
        report.target("non-blocking check: 1 thread with 64 in flight at least the throughput of 8 blocking threads",
                oneThread64 / eightThreads, String.format("%.2f×", oneThread64 / eightThreads), oneThread64 >= eightThreads);
        report.append("## Non-blocking check (Mono/Flux)\n\n")
                .append("`checkAsync`, which guards methods returning `Mono`/`Flux`, against the blocking `check`, on the")
                .append(" same filter and the same shared Lettuce connection. One call awaited, interleaved call by call")
                .append(" with the blocking one; then one thread that keeps a fixed number of checks in flight (each")
                .append(" completion starts the next), against eight threads that each wait for their reply.\n\n")
                .append("| approach | p50 µs, one call | checks/s |\n|---|---|---|\n")
                .append("| blocking `check`, 1 thread | ").append(Stats.spread(blockingP50, "%.1f")).append(" | |\n")
                .append("| `checkAsync`, awaited, 1 thread | ").append(Stats.spread(asyncP50, "%.1f")).append(" | |\n")
                .append("| blocking `check`, 8 threads | | ").append(Stats.spread(blockingEight, "%,.0f")).append(" |\n");
        for (int window : windows) {
            report.append("| `checkAsync`, 1 thread, ").append(window).append(" in flight | | ")
                    .append(Stats.spread(inFlight.get(window), "%,.0f")).append(" |\n");
        }
        report.append(String.format("%nOne awaited call: %.2f× the blocking check. One thread with 64 checks in flight:"
                + " %.2f× the throughput of eight blocking threads, with no thread waiting on Redis.%n%n",
                latencyRatio, oneThread64 / eightThreads));
    }

    /** Checks per second of one thread that keeps {@code window} asynchronous checks in flight. */
    private double inFlightThroughput(RedisBloomFilter filter, Latency latency, int window) throws Exception {
        Semaphore slots = new Semaphore(window);
        AtomicLong done = new AtomicLong();
        AtomicLong absent = new AtomicLong();
        long sequence = 0;
        long warmupEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.threadWarmupMillis());
        while (System.nanoTime() < warmupEnd) {
            slots.acquire();
            filter.checkAsync(latency.idFor(sequence++)).whenComplete((answer, error) -> slots.release());
        }
        long doneBefore = done.get();
        long started = System.nanoTime();
        long end = started + TimeUnit.MILLISECONDS.toNanos(settings.threadMeasureMillis());
        while (System.nanoTime() < end) {
            slots.acquire();
            filter.checkAsync(latency.idFor(sequence++)).whenComplete((answer, error) -> {
                done.incrementAndGet();
                if (answer == Membership.ABSENT) {
                    absent.incrementAndGet();
                }
                slots.release();
            });
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        slots.acquire(window);
        long checks = done.get() - doneBefore;
        if (absent.get() < checks / 3) {
            throw new IllegalStateException("only " + absent.get() + " of " + checks
                    + " non-blocking checks said absent; half the keys are");
        }
        return checks / seconds;
    }
}
