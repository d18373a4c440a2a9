package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import org.redisson.Redisson;

/**
 * {@code docs/benchmarks.md} as the scenarios write it: the header (machine, versions, mode),
 * the rows of the Targets table, and the sections in the order the scenarios append them.
 */
final class Report {

    private final StringBuilder header = new StringBuilder();
    private final StringBuilder sections = new StringBuilder();
    private final List<Target> targets = new ArrayList<>();

    /** {@code runs}: how many runs of the suite the file will report (see {@link SuiteRuns}). */
    void header(String arguments, SuiteSettings settings, int runs, String redisVersion, String postgresVersion) {
        header.append("# Benchmarks\n\n")
                .append("Produced by `./mvnw -q -Pbench -pl demo-app,guard-bench -am verify -DskipTests`")
                .append(arguments.isBlank() ? "" : " (arguments: `" + arguments + "`)")
                .append(" on ").append(LocalDate.now()).append(", mode **").append(settings.name()).append("**: ")
                .append(settings.rounds()).append(" rounds per figure; each figure is the median of the rounds with")
                .append(" [min–max] after it. ")
                .append(runs == 1 ? "Every number in this file and every chart comes from the same run."
                        : "The suite ran " + runs + " times, each run in its own JVM: the Targets table is judged on the"
                                + " median run and gives every run's figure; every section and chart below comes from the"
                                + " last run.")
                .append("\n\n")
                .append("| | |\n|---|---|\n")
                .append("| machine | ").append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
                .append(cpuModel()).append(", ").append(memoryGiB()).append(" GiB |\n")
                .append("| JVM | ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.version")).append(" |\n")
                .append("| Redis | ").append(redisVersion).append(" on loopback |\n")
                .append("| PostgreSQL | ").append(postgresVersion).append(" |\n")
                .append("| Redisson | ").append(Redisson.class.getPackage().getImplementationVersion() == null ? "3.50.0"
                        : Redisson.class.getPackage().getImplementationVersion()).append(" (default configuration) |\n")
                .append("| filter | ").append(String.format("%,d", PRESENT)).append(" keys at fpp ").append(FPP)
                .append("; checks ask 50% present / 50% absent keys |\n\n");
    }

    /** Adds to the sections, as {@link StringBuilder#append(Object)}. */
    Report append(Object text) {
        sections.append(text);
        return this;
    }

    /** A target judged on {@code value}, which {@code measured} shows. */
    void target(String target, double value, String measured, boolean met) {
        targets.add(new Target(target, value, measured, met));
    }

    void targets(List<Target> rows) {
        targets.addAll(rows);
    }

    List<Target> targets() {
        return List.copyOf(targets);
    }

    /** One row of the warmup table. */
    void row(long keys, String approach, String secondsText, double keysPerSecond, double vsFloor) {
        sections.append(String.format("| %,d | %s | %s | %,.0f | %.2f× |%n", keys, approach, secondsText, keysPerSecond, vsFloor));
    }

    /** The header, the Targets table, then the sections. */
    String document() {
        StringBuilder summary = new StringBuilder("## Targets\n\n| target | measured | met |\n|---|---|---|\n");
        for (Target target : targets) {
            summary.append("| ").append(String.join(" | ", target.cells())).append(" |\n");
        }
        return header + summary.toString() + "\n" + sections;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                    .findFirst().map(line -> line.substring(line.indexOf(':') + 1).trim()).orElse("unknown CPU");
        }
        catch (IOException ex) {
            return "unknown CPU";
        }
    }

    private static long memoryGiB() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return Math.round(os.getTotalMemorySize() / (1024.0 * 1024 * 1024));
    }
}
