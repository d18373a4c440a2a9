package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.log;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code --runs N}: the whole suite N times, each run in a JVM of its own started one after the
 * other, and a Targets table judged on the median run of each target. One run is not enough to
 * call a target met: on this 2-core machine a rerun of the same command moved three figures
 * across their thresholds (36× against 50×, 1.34× against 1.3×, 48× against 50×), so the
 * table also gives every run's figure and their spread, which is how stable that figure is. A
 * "never" target ({@link Target#everyRun}) is met only when every run met it.
 *
 * <p>N must be odd, so that the median is a run's own figure (with the row that run printed)
 * and not a mean of two. The sections and charts are the last run's.
 */
final class SuiteRuns {

    /** A run's Targets, one {@link Target#line()} per line, next to its {@code benchmarks.md}. */
    static final String TARGETS_FILE = "targets.tsv";

    private SuiteRuns() {
    }

    /**
     * Runs the suite {@code count} times with {@code arguments} (without {@code --runs}), each
     * writing into a directory of its own under {@code work}; returns the directories in order.
     */
    static List<Path> runEach(int count, List<String> arguments, Path work) throws IOException, InterruptedException {
        List<Path> directories = new ArrayList<>();
        for (int run = 1; run <= count; run++) {
            Path directory = Files.createDirectories(work.resolve("run-" + run));
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            command.addAll(List.of("-classpath", System.getProperty("java.class.path"), BenchmarkSuite.class.getName()));
            command.addAll(arguments);
            command.addAll(List.of("--docs", directory.toString(), "--run", run + "/" + count));
            log("Run %d of %d, into %s", run, count, directory);
            int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
            if (exit != 0) {
                throw new IllegalStateException("run " + run + " of " + count + " exited with " + exit
                        + "; its output is above, its files in " + directory);
            }
            directories.add(directory);
        }
        return directories;
    }

    static List<Target> read(Path directory) throws IOException {
        try (Stream<String> lines = Files.lines(directory.resolve(TARGETS_FILE))) {
            return lines.filter(line -> !line.isBlank()).map(Target::parse).toList();
        }
    }

    static void write(Path directory, List<Target> targets) throws IOException {
        Files.write(directory.resolve(TARGETS_FILE), targets.stream().map(Target::line).toList());
    }

    /**
     * The Targets section for {@code runs} (each run's targets, in the order the suite lists
     * them): per target its median run's figure, every run's figure, their spread, and "met"
     * as the median run says, with how many runs met it.
     */
    static String table(List<List<Target>> runs) {
        int count = runs.size();
        if (count % 2 == 0) {
            throw new IllegalArgumentException("the number of runs (" + count + ") must be odd: the median is a run's own figure");
        }
        Map<String, List<Target>> byName = new LinkedHashMap<>();
        for (int run = 0; run < count; run++) {
            for (Target target : runs.get(run)) {
                byName.computeIfAbsent(target.name(), name -> new ArrayList<>()).add(target);
            }
        }
        StringBuilder table = new StringBuilder("## Targets\n\n")
                .append(String.format(Locale.ROOT, "The whole suite ran %d times, each run in its own JVM, one after the"
                        + " other. Each target is judged on its median run: \"met\" is what that run says, with how many"
                        + " of the %d runs met it; a target that says no real key is refused or no present key is missed"
                        + " is met only when every run met it, and shows its worst run. \"Spread\" is (highest − lowest)"
                        + " / median over the runs: how far a single run of this command moves that figure on this"
                        + " machine.%n%n", count, count))
                .append("| target | judged on | each run | spread | met |\n|---|---|---|---|---|\n");
        byName.forEach((name, targets) -> {
            if (targets.size() != count) {
                throw new IllegalStateException("target \"" + name + "\" is in " + targets.size() + " of " + count + " runs");
            }
            List<Target> sorted = targets.stream().sorted(Comparator.comparingDouble(Target::value)).toList();
            long met = targets.stream().filter(Target::met).count();
            boolean everyRun = targets.get(0).everyRun();
            // A "never" target shows its worst run: the first that failed, if any did.
            Target judged = everyRun ? targets.stream().filter(target -> !target.met()).findFirst().orElse(sorted.get(count / 2))
                    : sorted.get(count / 2);
            boolean held = everyRun ? met == count : judged.met();
            table.append("| ").append(name).append(" | ").append(judged.measured()).append(" | ")
                    .append(String.join(" · ", targets.stream().map(Target::measured).toList())).append(" | ")
                    .append(spread(sorted.get(0).value(), sorted.get(count / 2).value(), sorted.get(count - 1).value())).append(" | ")
                    .append(held ? "yes" : "**no**").append(String.format(Locale.ROOT, " (%d of %d)", met, count))
                    .append(" |\n");
        });
        return table.append('\n').toString();
    }

    private static String spread(double lowest, double median, double highest) {
        if (lowest == highest) {
            return "0%";
        }
        if (median == 0) {
            return "—";
        }
        return String.format(Locale.ROOT, "%.0f%%", 100 * (highest - lowest) / Math.abs(median));
    }
}
