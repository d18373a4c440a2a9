package dev.bloomguard.bench;

import java.util.Arrays;
import java.util.List;

/** Summaries of repeated measurements: the median of the rounds and their spread. */
final class Stats {

    private Stats() {
    }

    static long percentile(long[] sortedNanos, double percent) {
        if (sortedNanos.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(percent / 100.0 * sortedNanos.length) - 1;
        return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, index))];
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** "median [min–max]" with the given format, e.g. {@code "%.1f"}. */
    static String spread(List<Double> values, String format) {
        if (values.size() == 1) {
            return String.format(format, values.get(0));
        }
        return String.format(format + " [" + format + "–" + format + "]", median(values), min(values), max(values));
    }

    static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }
}
