package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.log;

import java.util.LinkedHashMap;
import java.util.Map;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** The "Guard overhead (JMH)" section: runs {@link GuardOverheadBenchmark} in a forked JVM. */
record GuardOverheadScenario(SuiteSettings settings, Report report) {

    void run() throws Exception {
        log("Aspect overhead (JMH)");
        Options options = new OptionsBuilder()
                .include(GuardOverheadBenchmark.class.getName())
                .forks(1)
                .warmupIterations(settings.name().equals("full") ? 5 : 3)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(settings.name().equals("full") ? 10 : 5)
                .measurementTime(TimeValue.seconds(1))
                .jvmArgsAppend("-Xmx1g")
                .build();
        Map<String, Result<?>> results = new LinkedHashMap<>();
        for (RunResult result : new Runner(options).run()) {
            String label = result.getParams().getBenchmark();
            results.put(label.substring(label.lastIndexOf('.') + 1), result.getPrimaryResult());
        }
        double plainNanos = results.get("unannotatedNoOp").getScore();
        double guardedNanos = results.get("annotatedNoOp").getScore();
        report.target("aspect overhead under 1 µs per call", guardedNanos - plainNanos,
                String.format("%.0f ns", guardedNanos - plainNanos),
                guardedNanos - plainNanos < 1000);
        report.append("## Guard overhead (JMH)\n\n")
                .append("A no-op method with `@BloomGuard(filter = \"bench\", key = \"#id\")` on its interface against the")
                .append(" same no-op unannotated, the filter answering from memory (no network), present keys;")
                .append(" average time per call, 1 fork, ± the 99.9% confidence interval.\n\n")
                .append("| benchmark | ns per call |\n|---|---|\n");
        results.forEach((name, score) -> report.append(String.format("| %s | %.1f ± %.1f |%n", name, score.getScore(),
                score.getScoreError())));
        double monoNanos = results.get("unannotatedMonoNoOp").getScore();
        double guardedMonoNanos = results.get("annotatedMonoNoOp").getScore();
        report.target("reactive aspect overhead under 1 µs per call (Mono)", guardedMonoNanos - monoNanos,
                String.format("%.0f ns", guardedMonoNanos - monoNanos),
                guardedMonoNanos - monoNanos < 1000);
        report.append(String.format("%nThe aspect's own cost, annotated − unannotated: **%.0f ns** per call", guardedNanos - plainNanos))
                .append(String.format(" (of which the filter check itself, hashing included, is %.0f ns).", 
                        results.get("filterCheckAlone").getScore()))
                .append(String.format(" On a method returning `Mono`, subscribed and awaited: **%.0f ns** per call.%n%n",
                        guardedMonoNanos - monoNanos));
    }
}
