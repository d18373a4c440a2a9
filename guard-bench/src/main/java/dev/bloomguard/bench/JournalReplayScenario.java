package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.LongStream;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * How long a load holds Redis while it replays a full adds journal. A load replays every add of
 * the journal's retention onto its new bitmap; before issue 11 one script did it, and at a
 * million adds held the server for seconds (past {@code lua-time-limit}, so every other client got
 * {@code BUSY}). Now it is replayed in bounded steps. Measured with {@code SLOWLOG} (threshold 0:
 * every command, with the time it held the server), against the one-script replay of the same
 * journal as the baseline.
 *
 * @param longestMicros the longest single Redis command during the load
 * @param longestCommand its name
 * @param scriptCalls script calls during the load
 * @param p99ScriptMicros the 99th percentile of those script calls' durations
 * @param loadMillis the whole load, wall time
 * @param baselineMicros the one-script replay of the same journal
 */
record JournalReplayScenario(long adds, long longestMicros, String longestCommand, long scriptCalls,
        long p99ScriptMicros, long loadMillis, long baselineMicros) {

    /** Replays the way the swap did before it was stepped: every entry of the journal in one script, onto a scratch bitmap. */
    private static final String ONE_SCRIPT_REPLAY = """
            local entries = redis.call('LRANGE', KEYS[1], 0, -1)
            for i = 1, #entries do
              local entry = entries[i]
              if #entry % 4 == 0 then
                for j = 1, #entry, 4 do
                  local b1, b2, b3, b4 = string.byte(entry, j, j + 3)
                  redis.call('SETBIT', KEYS[2], ((b1 * 256 + b2) * 256 + b3) * 256 + b4, 1)
                end
              end
            end
            return #entries
            """;

    /** The suite's run: measured on a filter of its size, then its target row and its section. */
    static void run(Report report, BitmapStore store, StatefulRedisConnection<String, String> plain) {
        log("Journal replay: a load with 1,000,000 journaled adds");
        JournalReplayScenario replay = JournalReplayScenario.measure(store, plain, PRESENT, FPP, 1_000_000);
        report.target("a load replaying 1,000,000 journaled adds holds Redis at most 10 ms in any one command",
                replay.longestMicros() / 1000.0, String.format(Locale.ROOT, "%.1f ms", replay.longestMicros() / 1000.0), replay.longestMicros() <= 10_000);
        report.append(replay.section());
    }

    static JournalReplayScenario measure(BitmapStore store, StatefulRedisConnection<String, String> plain, long keys,
            double fpp, int adds) {
        RedisBloomFilter filter = RedisBloomFilter.builder("replay-bench", FilterGeometry.of(keys, fpp), store)
                .checkTimeout(Duration.ofSeconds(5)).build();
        filter.load(LongStream.rangeClosed(1, keys).boxed());
        for (long from = 0; from < adds; from += 10_000) {
            List<Long> batch = new ArrayList<>(10_000);
            for (long id = from; id < Math.min(adds, from + 10_000); id++) {
                batch.add(1_000_000_000L + id);
            }
            filter.addAll(batch);
        }
        RedisCommands<String, String> redis = plain.sync();
        redis.configSet("slowlog-log-slower-than", "0");
        redis.configSet("slowlog-max-len", "1000000");
        try {
            redis.slowlogReset();
            long started = System.nanoTime();
            LoadReport report = filter.load(LongStream.rangeClosed(1, keys).boxed());
            long loadMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
            if (report.replayedAdds() < adds) {
                throw new IllegalStateException("the load replayed " + report.replayedAdds() + " of " + adds + " adds");
            }
            long longest = 0;
            String longestCommand = "";
            List<Long> scripts = new ArrayList<>();
            for (Object entry : redis.slowlogGet(-1)) {
                List<?> fields = (List<?>) entry;
                long micros = (Long) fields.get(2);
                String command = String.valueOf(((List<?>) fields.get(3)).get(0)).toUpperCase(Locale.ROOT);
                if (command.startsWith("EVAL")) {
                    scripts.add(micros);
                }
                if (micros > longest && !command.startsWith("SLOWLOG")) {
                    longest = micros;
                    longestCommand = command;
                }
            }
            redis.slowlogReset();
            String scratch = "replay-bench-one-script";
            redis.del(scratch);
            redis.eval(ONE_SCRIPT_REPLAY, ScriptOutputType.INTEGER, filter.keys().journal(0), scratch);
            long baseline = 0;
            for (Object entry : redis.slowlogGet(-1)) {
                List<?> fields = (List<?>) entry;
                if (String.valueOf(((List<?>) fields.get(3)).get(0)).toUpperCase(Locale.ROOT).startsWith("EVAL")) {
                    baseline = Math.max(baseline, (Long) fields.get(2));
                }
            }
            redis.del(scratch);
            scripts.sort(null);
            long p99 = scripts.isEmpty() ? 0 : scripts.get((int) (scripts.size() * 0.99));
            return new JournalReplayScenario(adds, longest, longestCommand, scripts.size(), p99, loadMillis, baseline);
        }
        finally {
            redis.configSet("slowlog-log-slower-than", "10000");
            redis.configSet("slowlog-max-len", "128");
            filter.close();
        }
    }

    String section() {
        return "## Swap and journal replay: the longest Redis stall\n\n"
                + String.format(Locale.ROOT, "A load of the %s-key filter with %,d adds in its journal (the default"
                        + " journal capacity), which it replays onto the new bitmap before the swap. `SLOWLOG` with a"
                        + " threshold of 0 records every command and how long it held the server; the baseline replays"
                        + " the same journal in one script, as the swap did before journal replay was stepped. The 99th percentile is the figure to"
                        + " judge a step by; the longest is CPU-sensitive: on a busy 2-core machine, where the"
                        + " loader's JVM and Redis share the cores, a step can be descheduled and take a few times"
                        + " longer.%n%n", "1,000,000", adds)
                + "| replay | Redis calls (scripts) | script call, p99 | longest single command | load, wall time |\n"
                + "|---|---|---|---|---|\n"
                + String.format(Locale.ROOT, "| in steps (this release) | %,d | %.1f ms | %.1f ms (%s) | %,d ms |%n",
                        scriptCalls, p99ScriptMicros / 1000.0, longestMicros / 1000.0, longestCommand, loadMillis)
                + String.format(Locale.ROOT, "| one script (baseline) | 1 | | %.1f ms (EVAL) | |%n%n",
                        baselineMicros / 1000.0)
                + String.format(Locale.ROOT, "The longest stall is %.0f× shorter than the one-script replay's.%n%n",
                        (double) baselineMicros / Math.max(1, longestMicros));
    }
}
