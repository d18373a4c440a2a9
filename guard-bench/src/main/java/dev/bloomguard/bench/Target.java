package dev.bloomguard.bench;

import java.util.List;

/**
 * One row of the Targets table from one run: what is promised, the figure it is judged on
 * ({@code value}, the number {@code measured} shows), and whether this run met it. A target
 * that says "never" or "no" ({@code everyRun}: no real key refused, no false negative) is met
 * over several runs only when every run met it, not when the median did.
 */
record Target(String name, double value, String measured, boolean met, boolean everyRun) {

    Target(String name, double value, String measured, boolean met) {
        this(name, value, measured, met, false);
    }

    /** A target that one failing run fails: see {@link SuiteRuns#table}. */
    Target inEveryRun() {
        return new Target(name, value, measured, met, true);
    }

    Target {
        if (name.contains("\t") || measured.contains("\t") || name.contains("\n") || measured.contains("\n")) {
            throw new IllegalArgumentException("a target's name and figure must be one line without tabs: " + name);
        }
    }

    /** The row of a one-run Targets table: target, measured, met. */
    String[] cells() {
        return new String[] { name, measured, met ? "yes" : "**no**" };
    }

    /** One line of a run's targets file, read back by {@link #parse}. */
    String line() {
        return String.join("\t", name, Double.toString(value), measured, Boolean.toString(met), Boolean.toString(everyRun));
    }

    static Target parse(String line) {
        List<String> cells = List.of(line.split("\t", -1));
        if (cells.size() != 5) {
            throw new IllegalArgumentException("not a target line (name, value, measured, met, every run): " + line);
        }
        return new Target(cells.get(0), Double.parseDouble(cells.get(1)), cells.get(2), Boolean.parseBoolean(cells.get(3)),
                Boolean.parseBoolean(cells.get(4)));
    }
}
