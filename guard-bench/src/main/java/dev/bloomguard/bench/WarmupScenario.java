package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.awaitAll;
import static dev.bloomguard.bench.BenchSupport.log;
import static dev.bloomguard.bench.BenchSupport.stream;
import static dev.bloomguard.bench.BenchSupport.time;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.spring.warmup.SqlKeySource;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/** The "Warmup from PostgreSQL" section: bloom-guard's load against JDBC streaming and the peers' loads. */
record WarmupScenario(SuiteSettings settings, Report report, Path docs) {

    void run(DataSource dataSource, LettuceBitmapStore store, RedissonClient redisson,
            StatefulRedisConnection<String, String> plain) throws Exception {
        long largest = settings.warmupSizes()[settings.warmupSizes().length - 1];
        log("Seeding PostgreSQL with %,d rows", largest);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS bench_users");
            statement.execute("CREATE TABLE bench_users AS SELECT g::bigint AS id FROM generate_series(1, " + largest + ") g");
            statement.execute("VACUUM ANALYZE bench_users");
        }
        report.append("## Warmup from PostgreSQL\n\n")
                .append("Keys streamed from `SELECT id FROM bench_users WHERE id <= n` (fetch size 10,000). ")
                .append("Plain JDBC streaming of the same query is the floor. Peers slower than ")
                .append(settings.peerLoadCapMillis() / 1000).append(" s are stopped there and their rate extrapolated ")
                .append("(marked *).\n\n")
                .append("| keys | approach | seconds | keys/s | vs JDBC floor |\n|---|---|---|---|---|\n");
        double[] sizes = new double[settings.warmupSizes().length];
        Map<String, double[]> seconds = new LinkedHashMap<>();
        for (int s = 0; s < settings.warmupSizes().length; s++) {
            long keys = settings.warmupSizes()[s];
            sizes[s] = keys;
            String sql = "SELECT id FROM bench_users WHERE id <= " + keys;
            List<Double> floor = new ArrayList<>();
            List<Double> ours = new ArrayList<>();
            for (int round = 0; round < Math.max(1, settings.rounds() - 1); round++) {
                floor.add(time(() -> stream(dataSource, sql, id -> { })));
                RedisBloomFilter filter = RedisBloomFilter.builder("warm-" + keys, FilterGeometry.of(keys, FPP), store).build();
                ours.add(time(() -> {
                    LoadReport loaded = new SqlKeySource(dataSource, sql, 10_000).loadInto(filter, false);
                    if (loaded.keys() != keys) {
                        throw new IllegalStateException("loaded " + loaded.keys());
                    }
                }));
            }
            Capped redissonLoad = redissonLoad(dataSource, sql, keys, redisson);
            Capped setbitLoad = setbitLoad(dataSource, sql, keys, plain);
            double floorSeconds = Stats.median(floor);
            report.row(keys, "plain JDBC streaming (floor)", Stats.spread(floor, "%.2f"), keys / floorSeconds, 1.0);
            report.row(keys, "bloom-guard load", Stats.spread(ours, "%.2f"), keys / Stats.median(ours),
                    Stats.median(ours) / floorSeconds);
            report.row(keys, "Redisson add(Collection)" + (redissonLoad.extrapolated ? " *" : ""),
                    String.format("%.1f", redissonLoad.seconds), keys / redissonLoad.seconds,
                    redissonLoad.seconds / floorSeconds);
            report.row(keys, "pipelined SETBIT" + (setbitLoad.extrapolated ? " *" : ""), String.format("%.1f", setbitLoad.seconds),
                    keys / setbitLoad.seconds, setbitLoad.seconds / floorSeconds);
            seconds.computeIfAbsent("JDBC floor", name -> new double[sizes.length])[s] = floorSeconds;
            seconds.computeIfAbsent("bloom-guard", name -> new double[sizes.length])[s] = Stats.median(ours);
            seconds.computeIfAbsent("Redisson add(Collection)", name -> new double[sizes.length])[s] = redissonLoad.seconds;
            seconds.computeIfAbsent("pipelined SETBIT", name -> new double[sizes.length])[s] = setbitLoad.seconds;
        }
        int last = sizes.length - 1;
        double oursLargest = seconds.get("bloom-guard")[last];
        report.target(String.format("warmup of %,d keys within 1.3× of JDBC streaming", (long) sizes[last]),
                oursLargest / seconds.get("JDBC floor")[last],
                String.format("%.2f×", oursLargest / seconds.get("JDBC floor")[last]),
                oursLargest / seconds.get("JDBC floor")[last] <= 1.3);
        report.target(String.format("warmup of %,d keys at least 50× faster than Redisson add(Collection)", (long) sizes[last]),
                seconds.get("Redisson add(Collection)")[last] / oursLargest,
                String.format("%.0f×", seconds.get("Redisson add(Collection)")[last] / oursLargest),
                seconds.get("Redisson add(Collection)")[last] / oursLargest >= 50);
        Charts.lines(docs.resolve("bench-warmup.png"), "Warmup time vs keys (log-log)", "keys", "s", sizes, seconds, false);
        report.append("\n![Warmup time vs keys](bench-warmup.png)\n\n");
    }

    private record Capped(double seconds, boolean extrapolated) {
    }

    private Capped redissonLoad(DataSource dataSource, String sql, long keys, RedissonClient redisson) throws Exception {
        RBloomFilter<String> filter = redisson.getBloomFilter("redisson-warm-" + keys, StringCodec.INSTANCE);
        filter.delete();
        filter.tryInit(keys, FPP);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.peerLoadCapMillis());
        long started = System.nanoTime();
        long[] done = new long[1];
        List<String> chunk = new ArrayList<>(10_000);
        try {
            stream(dataSource, sql, id -> {
                chunk.add(Long.toString(id));
                if (chunk.size() == 10_000) {
                    filter.add(chunk);
                    done[0] += chunk.size();
                    chunk.clear();
                    if (System.nanoTime() > deadline) {
                        throw new CapReached();
                    }
                }
            });
            if (!chunk.isEmpty()) {
                filter.add(chunk);
                done[0] += chunk.size();
            }
        }
        catch (CapReached stopped) {
            double elapsed = (System.nanoTime() - started) / 1e9;
            return new Capped(elapsed * keys / done[0], true);
        }
        finally {
            filter.delete();
        }
        return new Capped((System.nanoTime() - started) / 1e9, false);
    }

    private Capped setbitLoad(DataSource dataSource, String sql, long keys, StatefulRedisConnection<String, String> plain)
            throws Exception {
        FilterGeometry geometry = FilterGeometry.of(keys, FPP);
        String key = "setbit-warm-" + keys;
        RedisAsyncCommands<String, String> async = plain.async();
        async.del(key).get();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.peerLoadCapMillis());
        long started = System.nanoTime();
        long[] done = new long[1];
        List<RedisFuture<Long>> pending = new ArrayList<>();
        long[] offsets = new long[geometry.hashes()];
        try {
            stream(dataSource, sql, id -> {
                BitPositions.fill(id, geometry.bits(), geometry.hashes(), offsets, 0);
                for (long offset : offsets) {
                    pending.add(async.setbit(key, offset, 1));
                }
                done[0]++;
                if (pending.size() >= 10_000) {
                    awaitAll(pending);
                    if (System.nanoTime() > deadline) {
                        throw new CapReached();
                    }
                }
            });
            awaitAll(pending);
        }
        catch (CapReached stopped) {
            double elapsed = (System.nanoTime() - started) / 1e9;
            return new Capped(elapsed * keys / done[0], true);
        }
        return new Capped((System.nanoTime() - started) / 1e9, false);
    }

    /** Stops a peer's load at the time cap. */
    private static final class CapReached extends RuntimeException {

        private static final long serialVersionUID = 1L;

        CapReached() {
            super(null, null, false, false);
        }
    }
}
