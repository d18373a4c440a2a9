package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.ABSENT_BASE;
import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.log;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import org.redisson.api.RBloomFilter;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;

/** The "False positives" section: the suite's filter and Redisson's, then measured against configured fpp. */
record FalsePositiveScenario(SuiteSettings settings, Report report, Path docs) {

    void run(RedisBloomFilter filter, RBloomFilter<String> redissonFilter, LettuceBitmapStore store)
            throws Exception {
        log("False-positive rates");
        long absent = settings.fppAbsentKeys();
        long ours = 0;
        List<Long> ids = new ArrayList<>(1000);
        for (long i = 1; i <= absent; i++) {
            ids.add(ABSENT_BASE + i);
            if (ids.size() == 1000 || i == absent) {
                for (Membership answer : filter.checkAll(ids)) {
                    ours += answer == Membership.PRESENT ? 1 : 0;
                }
                ids.clear();
            }
        }
        long redissonChecked = Math.min(absent, 200_000);
        long theirs = 0;
        List<String> keys = new ArrayList<>(1000);
        for (long i = 1; i <= redissonChecked; i++) {
            keys.add(Long.toString(ABSENT_BASE + i));
            if (keys.size() == 1000 || i == redissonChecked) {
                theirs += redissonFilter.contains(keys);
                keys.clear();
            }
        }
        FilterGeometry geometry = filter.geometry();
        double theoretical = geometry.expectedFpp(PRESENT);
        double measured = (double) ours / absent;
        report.target("fpp over " + String.format("%,d", absent) + " absent keys within 5% of (1 − e^(−kn/m))^k",
                measured / theoretical, String.format("%.3f× theoretical", measured / theoretical), Math.abs(measured / theoretical - 1) <= 0.05);
        report.append("## False positives\n\n")
                .append("| filter | absent keys checked | measured fpp | theoretical (1 − e^(−kn/m))^k | measured / theoretical |\n")
                .append("|---|---|---|---|---|\n")
                .append(String.format("| bloom-guard (m = %,d, k = %d) | %,d | %.5f | %.5f | %.3f |%n", geometry.bits(),
                        geometry.hashes(), absent, measured, theoretical, measured / theoretical))
                .append(String.format("| Redisson | %,d | %.5f | configured %.2f | %.3f of configured |%n%n",
                        redissonChecked, (double) theirs / redissonChecked, FPP, (double) theirs / redissonChecked / FPP));

        double[] configured = { 0.001, 0.003, 0.01, 0.03, 0.1 };
        double[] measuredCurve = new double[configured.length];
        double[] theoreticalCurve = new double[configured.length];
        long n = 100_000;
        long checks = 200_000;
        report.append("Measured against configured fpp, ").append(String.format("%,d", n))
                .append(" keys per filter, ").append(String.format("%,d", checks)).append(" absent keys each:\n\n")
                .append("| configured fpp | measured | theoretical for the geometry |\n|---|---|---|\n");
        for (int c = 0; c < configured.length; c++) {
            RedisBloomFilter curve = RedisBloomFilter.builder("fpp-" + c, FilterGeometry.of(n, configured[c]), store)
                    .checkTimeout(Duration.ofSeconds(5)).build();
            curve.load(LongStream.rangeClosed(1, n).boxed());
            long positives = 0;
            for (long from = 0; from < checks; from += 1000) {
                List<Long> batch = new ArrayList<>(1000);
                for (long i = from; i < from + 1000; i++) {
                    batch.add(ABSENT_BASE + i);
                }
                positives += curve.checkAll(batch).stream().filter(answer -> answer == Membership.PRESENT).count();
            }
            measuredCurve[c] = (double) positives / checks;
            theoreticalCurve[c] = curve.geometry().expectedFpp(n);
            report.append(String.format("| %.3f | %.5f | %.5f |%n", configured[c], measuredCurve[c], theoreticalCurve[c]));
        }
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("measured", measuredCurve);
        series.put("theoretical (geometry)", theoreticalCurve);
        Charts.lines(docs.resolve("bench-fpp.png"), "False-positive rate: measured vs configured (dashed: y = x)",
                "", "", configured, series, true);
        report.append("\n![fpp measured vs configured](bench-fpp.png)\n\n");
    }
}
