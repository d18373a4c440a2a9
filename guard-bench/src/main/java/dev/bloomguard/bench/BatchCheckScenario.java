package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.ABSENT_BASE;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.batchMillis;
import static dev.bloomguard.bench.BenchSupport.log;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The "Check: a batch of 1,000 keys" section. */
record BatchCheckScenario(SuiteSettings settings, Report report) {

    void run(Peers peers) throws Exception {
        log("Batch check of 1,000 keys");
        List<CheckApproach> approaches = peers.batching();
        Latency latency = new Latency(PRESENT, ABSENT_BASE);
        Map<String, List<Double>> millis = new LinkedHashMap<>();
        long sequence = 0;
        for (int round = 0; round < settings.rounds(); round++) {
            for (CheckApproach approach : approaches) {
                List<Long> warm = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    warm.add(latency.idFor(sequence++));
                }
                approach.containsAll(warm);
                millis.computeIfAbsent(approach.name(), name -> new ArrayList<>())
                        .add(batchMillis(approach, latency, sequence, settings.batchesPerRound()));
                sequence += 1000L * settings.batchesPerRound();
            }
        }
        double redisson = Stats.median(millis.get(peers.redisson().name()));
        double oursBatch = Stats.median(millis.get(peers.bloomGuard().name()));
        report.target("batch of 1,000: at least 2× faster than Redisson contains(Collection), saying which keys",
                redisson / oursBatch, String.format("%.2f× faster, per key", redisson / oursBatch), redisson / oursBatch >= 2);
        report.append("## Check: a batch of 1,000 keys\n\n")
                .append("| approach | p50 ms per batch | vs Redisson | says which keys |\n|---|---|---|---|\n");
        for (CheckApproach approach : approaches) {
            List<Double> values = millis.get(approach.name());
            report.append("| ").append(approach.name().replace(".contains", ".contains(Collection)"))
                    .append(" | ").append(Stats.spread(values, "%.2f"))
                    .append(" | ").append(String.format("%.2f× faster", redisson / Stats.median(values)))
                    .append(" | ").append(approach.batchTellsWhich() ? "yes" : "no, only a count").append(" |\n");
        }
        report.append('\n');
    }
}
