package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.ABSENT_BASE;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.log;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.mirror.MirrorSettings;

/** The "Local mirror" section. */
record MirrorScenario(SuiteSettings settings, Report report) {

    /**
     * The local mirror against the plain Redis check, present and absent keys apart: a present
     * key is answered from memory, an absent one still asks Redis before it is blocked.
     */
    void run(CheckApproach redisCheck, RedisBloomFilter mirrored) throws Exception {
        log("Local mirror");
        Latency latency = new Latency(PRESENT, ABSENT_BASE);
        long pages = (mirrored.geometry().byteSize() + MirrorSettings.DEFAULT_PAGE_BYTES - 1)
                / MirrorSettings.DEFAULT_PAGE_BYTES;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (long id = 1; mirrored.mirrorStats().orElseThrow().pages() < pages; id++) {
            mirrored.check(id % PRESENT + 1);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the mirror did not load its pages within 60 s");
            }
        }
        CheckApproach mirror = Approaches.bloomGuard(mirrored);
        CheckApproach redisPresent = only(redisCheck, "bloom-guard check, present keys", false);
        CheckApproach mirrorPresent = only(mirror, "local mirror, present keys", false);
        CheckApproach redisAbsent = only(redisCheck, "bloom-guard check, absent keys", true);
        CheckApproach mirrorAbsent = only(mirror, "local mirror, absent keys", true);
        Map<String, List<Double>> p50 = new LinkedHashMap<>();
        Map<String, List<Double>> p99 = new LinkedHashMap<>();
        for (int round = 0; round < settings.rounds(); round++) {
            latency.interleaved(List.of(redisPresent, mirrorPresent, redisAbsent, mirrorAbsent), settings.warmupOps(),
                    settings.singleOps()).forEach((name, result) -> {
                        p50.computeIfAbsent(name, key -> new ArrayList<>()).add(result.p50Nanos() / 1000.0);
                        p99.computeIfAbsent(name, key -> new ArrayList<>()).add(result.p99Nanos() / 1000.0);
                    });
        }
        double presentRatio = Stats.median(p50.get(redisPresent.name())) / Stats.median(p50.get(mirrorPresent.name()));
        double absentRatio = Stats.median(p50.get(mirrorAbsent.name())) / Stats.median(p50.get(redisAbsent.name()));
        report.target("local mirror: present keys at least 50× faster than the Redis check (p50)",
                presentRatio, String.format("%.0f× faster", presentRatio), presentRatio >= 50);
        report.target("local mirror: absent keys no slower than the Redis check alone (p50)",
                absentRatio, String.format("%.2f× the Redis check", absentRatio), absentRatio <= 1.05);
        report.append("## Local mirror\n\n")
                .append("The same filter with `local-mirror.enabled` (64 MB budget, all pages loaded) against the plain")
                .append(" Redis check, one thread, present and absent keys measured apart and interleaved call by call.")
                .append(" A present key is answered from memory; an absent one is confirmed with Redis before it is")
                .append(" blocked, so it costs the Redis check plus a memory lookup.\n\n")
                .append("| approach | p50 µs | p99 µs |\n|---|---|---|\n");
        for (String name : p50.keySet()) {
            report.append("| ").append(name).append(" | ").append(Stats.spread(p50.get(name), "%.2f")).append(" | ")
                    .append(Stats.spread(p99.get(name), "%.2f")).append(" |\n");
        }
        report.append(String.format("%nPresent keys: the mirror is %.0f× faster than the Redis check. Absent keys: %.2f× the Redis check.%n%n",
                presentRatio, absentRatio));
    }

    private static CheckApproach only(CheckApproach approach, String name, boolean absent) {
        return new CheckApproach() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean contains(long sequence) throws Exception {
                long slot = Math.floorMod(sequence * 0x9E3779B97F4A7C15L, PRESENT) + 1;
                return approach.contains(absent ? ABSENT_BASE + slot : slot);
            }
        };
    }
}
