package dev.bloomguard.bench;

/**
 * How long the suite measures: {@code quick} (the default) or {@code full}; see
 * {@link BenchmarkSuite#main}.
 */
record SuiteSettings(String name, int rounds, int warmupOps, int singleOps, long threadWarmupMillis,
        long threadMeasureMillis, int batchesPerRound, long peerLoadCapMillis, long[] warmupSizes,
        long fppAbsentKeys) {
}
