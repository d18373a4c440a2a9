package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.ABSENT_BASE;
import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.awaitAll;
import static dev.bloomguard.bench.BenchSupport.batchMillis;
import static dev.bloomguard.bench.BenchSupport.log;
import static dev.bloomguard.bench.BenchSupport.stream;
import static dev.bloomguard.bench.BenchSupport.time;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import javax.sql.DataSource;

import org.redisson.Redisson;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.embedded.PostgresServer;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.redis.SpringDataLettuceConnections;
import dev.bloomguard.spring.warmup.SqlKeySource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * Compares bloom-guard with what its users would otherwise pick, on this machine, in one run,
 * against a real {@code redis-server} and PostgreSQL that it starts itself. Every figure is
 * also given as a ratio to a baseline measured in the same run, so the table says something on
 * any machine. Writes {@code docs/benchmarks.md} and its PNG charts.
 *
 * <p>{@code --quick} (the default) finishes in a few minutes on 2 cores; {@code --full} runs
 * longer rounds. {@code --only under-attack} runs that scenario alone and replaces only its
 * section and target rows in the existing file.
 *
 * <p>Size: one class for twelve scenarios. Issue 15 splits it into a scenario per class with a
 * report builder; until then a change to one scenario reruns and checks all of them.
 */
public final class BenchmarkSuite {

    private final SuiteSettings settings;
    private final Report report = new Report();
    private final Path docs;

    private BenchmarkSuite(SuiteSettings settings, Path docs) {
        this.settings = settings;
        this.docs = docs;
    }

    public static void main(String[] args) throws Exception {
        boolean full = List.of(args).contains("--full");
        SuiteSettings settings = full
                ? new SuiteSettings("full", 5, 20_000, 50_000, 2_000, 10_000, 500, 30_000, new long[] { 1_000_000, 10_000_000 }, 1_000_000)
                : new SuiteSettings("quick", 3, 3_000, 10_000, 500, 2_000, 100, 8_000, new long[] { 1_000_000, 10_000_000 }, 1_000_000);
        Path docs = Path.of("docs");
        Files.createDirectories(docs);
        int only = List.of(args).indexOf("--only");
        if (only >= 0) {
            String scenario = only + 1 < args.length ? args[only + 1] : "";
            if (!scenario.equals(UnderAttackScenario.MARKER)) {
                throw new IllegalArgumentException("--only (" + scenario + ") must be " + UnderAttackScenario.MARKER);
            }
            new BenchmarkSuite(settings, docs).underAttackAlone();
            return;
        }
        new BenchmarkSuite(settings, docs).run(String.join(" ", args));
    }

    private void run(String arguments) throws Exception {
        long started = System.nanoTime();
        try (RedisServer redis = RedisServer.start();
                PostgresServer postgres = PostgresServer.start()) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(redis.host(), redis.port()));
            factory.afterPropertiesSet();
            factory.start();
            RedisClient lettuce = RedisClient.create("redis://" + redis.host() + ":" + redis.port());
            Config redissonConfig = new Config();
            redissonConfig.useSingleServer().setAddress("redis://" + redis.host() + ":" + redis.port());
            RedissonClient redisson = Redisson.create(redissonConfig);
            try (StatefulRedisConnection<String, String> plain = lettuce.connect();
                    StatefulRedisConnection<String, String> batch = lettuce.connect()) {
                header(arguments, plain, postgres);
                LettuceBitmapStore store = LettuceBitmapStore.create(new SpringDataLettuceConnections(factory), Duration.ofSeconds(60));
                RedisBloomFilter filter = RedisBloomFilter.builder("bench", FilterGeometry.of(PRESENT, FPP), store)
                        .checkTimeout(Duration.ofSeconds(5)).build();
                log("Loading bloom-guard, Redisson and Guava filters of %,d keys", PRESENT);
                filter.load(LongStream.rangeClosed(1, PRESENT).boxed());
                RBloomFilter<String> redissonFilter = redisson.getBloomFilter("redisson-bench", StringCodec.INSTANCE);
                redissonFilter.delete();
                redissonFilter.tryInit(PRESENT, FPP);
                for (long from = 1; from <= PRESENT; from += 10_000) {
                    List<String> chunk = new ArrayList<>(10_000);
                    for (long id = from; id < from + 10_000 && id <= PRESENT; id++) {
                        chunk.add(Long.toString(id));
                    }
                    redissonFilter.add(chunk);
                }
                BloomFilter<Long> guava = BloomFilter.create(Funnels.longFunnel(), PRESENT, FPP);
                LongStream.rangeClosed(1, PRESENT).forEach(guava::put);

                var nativeCommands = ((LettuceConnection) factory.getConnection()).getNativeConnection();
                Peers peers = new Peers(Approaches.ping(nativeCommands), Approaches.bloomGuard(filter),
                        Approaches.redisson(redissonFilter),
                        Approaches.pipelinedGetbit(plain, batch, filter.keys().live(), filter.geometry()),
                        Approaches.luaGetbit(plain, filter.keys().live(), filter.geometry()), Approaches.guava(guava));

                new CheckLatencyScenario(settings, report, docs).run(peers, plain);
                RedisBloomFilter mirrored = RedisBloomFilter.builder("bench", FilterGeometry.of(PRESENT, FPP), store)
                        .checkTimeout(Duration.ofSeconds(5))
                        .mirror(dev.bloomguard.core.mirror.MirrorSettings.of(64L << 20, Duration.ofMinutes(10))).build();
                try {
                    new MirrorScenario(settings, report).run(peers.bloomGuard(), mirrored);
                }
                finally {
                    mirrored.close();
                }
                new BatchCheckScenario(settings, report).run(peers);
                new ReactiveCheckScenario(settings, report).run(filter, peers.bloomGuard());
                falsePositives(filter, redissonFilter, store);
                warmup(postgres.dataSource(), store, redisson, plain);
                journalReplay(store, plain);
                cluster(postgres.dataSource(), peers.bloomGuard(), store);
                pastOneRedisString(store);
                memory(plain, filter, redissonFilter);
            }
            finally {
                redisson.shutdown();
                lettuce.shutdown();
                factory.destroy();
            }
        }
        guardOverhead();
        demo();
        underAttack();
        report.append("\nTotal run time: ").append(Duration.ofNanos(System.nanoTime() - started).toSeconds())
                .append(" s.\n");
        Files.writeString(docs.resolve("benchmarks.md"), report.document());
        log("Wrote %s", docs.resolve("benchmarks.md").toAbsolutePath());
    }

    private void header(String arguments, StatefulRedisConnection<String, String> redis, PostgresServer postgres)
            throws SQLException {
        String redisVersion = redis.sync().info("server").lines().filter(line -> line.startsWith("redis_version:"))
                .findFirst().orElse("redis_version:?").substring("redis_version:".length()).trim();
        String postgresVersion;
        try (Connection connection = postgres.dataSource().getConnection()) {
            postgresVersion = connection.getMetaData().getDatabaseProductVersion();
        }
        report.header(arguments, settings, redisVersion, postgresVersion);
    }

    private void falsePositives(RedisBloomFilter filter, RBloomFilter<String> redissonFilter, LettuceBitmapStore store)
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
                String.format("%.3f× theoretical", measured / theoretical), Math.abs(measured / theoretical - 1) <= 0.05);
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

    private void warmup(DataSource dataSource, LettuceBitmapStore store, RedissonClient redisson,
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
                String.format("%.2f×", oursLargest / seconds.get("JDBC floor")[last]),
                oursLargest / seconds.get("JDBC floor")[last] <= 1.3);
        report.target(String.format("warmup of %,d keys at least 50× faster than Redisson add(Collection)", (long) sizes[last]),
                String.format("%.0f×", seconds.get("Redisson add(Collection)")[last] / oursLargest),
                seconds.get("Redisson add(Collection)")[last] / oursLargest >= 50);
        Charts.lines(docs.resolve("bench-warmup.png"), "Warmup time vs keys (log-log)", "keys", "s", sizes, seconds, false);
        report.append("\n![Warmup time vs keys](bench-warmup.png)\n\n");
    }

    private void guardOverhead() throws Exception {
        log("Aspect overhead (JMH)");
        org.openjdk.jmh.runner.options.Options options = new org.openjdk.jmh.runner.options.OptionsBuilder()
                .include(GuardOverheadBenchmark.class.getName())
                .forks(1)
                .warmupIterations(settings.name().equals("full") ? 5 : 3)
                .warmupTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1))
                .measurementIterations(settings.name().equals("full") ? 10 : 5)
                .measurementTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1))
                .jvmArgsAppend("-Xmx1g")
                .build();
        Map<String, org.openjdk.jmh.results.Result<?>> results = new LinkedHashMap<>();
        for (org.openjdk.jmh.results.RunResult result : new org.openjdk.jmh.runner.Runner(options).run()) {
            String label = result.getParams().getBenchmark();
            results.put(label.substring(label.lastIndexOf('.') + 1), result.getPrimaryResult());
        }
        double plainNanos = results.get("unannotatedNoOp").getScore();
        double guardedNanos = results.get("annotatedNoOp").getScore();
        report.target("aspect overhead under 1 µs per call", String.format("%.0f ns", guardedNanos - plainNanos),
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
        report.target("reactive aspect overhead under 1 µs per call (Mono)", String.format("%.0f ns", guardedMonoNanos - monoNanos),
                guardedMonoNanos - monoNanos < 1000);
        report.append(String.format("%nThe aspect's own cost, annotated − unannotated: **%.0f ns** per call", guardedNanos - plainNanos))
                .append(String.format(" (of which the filter check itself, hashing included, is %.0f ns).", 
                        results.get("filterCheckAlone").getScore()))
                .append(String.format(" On a method returning `Mono`, subscribed and awaited: **%.0f ns** per call.%n%n",
                        guardedMonoNanos - monoNanos));
    }

    private void demo() throws Exception {
        log("End to end on the demo");
        DemoEndToEnd endToEnd = new DemoEndToEnd(DemoProcess.JAR);
        long measure = settings.name().equals("full") ? 20_000 : 8_000;
        DemoEndToEnd.Run off = endToEnd.run(false, 8, 3_000, measure);
        DemoEndToEnd.Run on = endToEnd.run(true, 8, 3_000, measure);
        report.append("## End to end: the demo under a request mix\n\n")
                .append("`GET /users/{id}` from 8 client threads, half the ids present (1..1,000,000), half absent;")
                .append(" the demo's own jar with its embedded Redis and H2 database of 1,000,000 users, started with")
                .append(" `--bloom-guard.enabled=false` and then `true`; ").append(measure / 1000)
                .append(" s measured after 3 s of warmup. Client and server share the 2 cores.\n\n")
                .append("| guard | requests/s | requests | database queries | queries per request | database queries avoided |\n")
                .append("|---|---|---|---|---|---|\n");
        for (DemoEndToEnd.Run run : List.of(off, on)) {
            double avoided = 1 - (double) run.databaseQueries() / run.requests();
            report.append(String.format("| %s | %,.0f | %,d | %,d | %.3f | %.1f%% |%n", run.guarded() ? "on" : "off",
                    run.requestsPerSecond(), run.requests(), run.databaseQueries(), run.queriesPerRequest(),
                    100 * avoided));
        }
        report.append(String.format("%nWith the guard on, requests/s is %.2f× the unguarded figure.%n%n",
                on.requestsPerSecond() / off.requestsPerSecond()))
                .append("Requests are counted by the clients and queries by the demo between the same two `/stats`")
                .append(" reads, so a few requests in flight at either end make the unguarded share differ from 0% by")
                .append(" a hair. Requests/s barely moves here because the demo's database is H2 in the same JVM: a")
                .append(" primary-key lookup there costs about what the Redis check costs, and clients, server, Redis")
                .append(" and H2 share 2 cores. What the guard buys shows in the queries: every blocked request is one")
                .append(" the database never sees, which is what matters when the database is the shared, slow part.\n\n");
    }

    private UnderAttackReport underAttackReport() throws Exception {
        boolean full = settings.name().equals("full");
        UnderAttackScenario.Settings attack = full ? new UnderAttackScenario.Settings(5, 3_000, 15_000, 2, 6, 8)
                : new UnderAttackScenario.Settings(3, 2_000, 6_000, 2, 6, 8);
        UnderAttackReport result = new UnderAttackReport(attack,
                new UnderAttackScenario(DemoProcess.JAR, attack).run());
        result.chart(docs);
        return result;
    }

    private void underAttack() throws Exception {
        UnderAttackReport result = underAttackReport();
        report.append(result.section(false)).append('\n');
        report.targets(result.targets());
    }

    /** {@code --only under-attack}: replaces that section and its targets in the existing file. */
    private void underAttackAlone() throws Exception {
        UnderAttackReport result = underAttackReport();
        Path file = docs.resolve("benchmarks.md");
        String document = Files.exists(file) ? Files.readString(file) : "# Benchmarks\n";
        document = ReportSections.splice(document, UnderAttackScenario.MARKER, result.section(true));
        Files.writeString(file, ReportSections.targets(document, UnderAttackReport.TARGET_PREFIX, result.targets()));
        result.targets().forEach(row -> log("Target: %s: %s (%s)", row[0], row[1], row[2]));
        log("Wrote the under-attack section of %s", file.toAbsolutePath());
    }

    private void journalReplay(LettuceBitmapStore store, StatefulRedisConnection<String, String> plain) {
        log("Journal replay: a load with 1,000,000 journaled adds");
        JournalReplayScenario replay = JournalReplayScenario.measure(store, plain, PRESENT, FPP, 1_000_000);
        report.target("a load replaying 1,000,000 journaled adds holds Redis at most 10 ms in any one command",
                String.format(Locale.ROOT, "%.1f ms", replay.longestMicros() / 1000.0), replay.longestMicros() <= 10_000);
        report.append(replay.section());
    }

    /**
     * A sharded filter on a real three-master Redis Cluster against the standalone filter: one
     * key, a batch of 1,000, and a warmup of the largest size from PostgreSQL.
     */
    private void cluster(DataSource dataSource, CheckApproach standalone, LettuceBitmapStore standaloneStore)
            throws Exception {
        log("Redis Cluster");
        try (dev.bloomguard.embedded.RedisCluster cluster = dev.bloomguard.embedded.RedisCluster.start(3)) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new org.springframework.data.redis.connection.RedisClusterConfiguration(cluster.nodeAddresses()));
            factory.afterPropertiesSet();
            factory.start();
            try {
                LettuceBitmapStore store = LettuceBitmapStore.create(new SpringDataLettuceConnections(factory), Duration.ofSeconds(60));
                RedisBloomFilter sharded = RedisBloomFilter.builder("bench", FilterGeometry.withShards(PRESENT, FPP, 6), store)
                        .checkTimeout(Duration.ofSeconds(5)).build();
                sharded.load(LongStream.rangeClosed(1, PRESENT).boxed());
                CheckApproach clustered = new CheckApproach() {
                    private final CheckApproach delegate = Approaches.bloomGuard(sharded);

                    @Override
                    public String name() {
                        return "bloom-guard check, 6 shards on a 3-node cluster";
                    }

                    @Override
                    public boolean contains(long id) throws Exception {
                        return delegate.contains(id);
                    }

                    @Override
                    public int containsAll(List<Long> ids) throws Exception {
                        return delegate.containsAll(ids);
                    }
                };
                Latency latency = new Latency(PRESENT, ABSENT_BASE);
                Map<String, List<Double>> p50 = new LinkedHashMap<>();
                for (int round = 0; round < settings.rounds(); round++) {
                    latency.interleaved(List.of(standalone, clustered), settings.warmupOps(), settings.singleOps())
                            .forEach((name, result) -> p50.computeIfAbsent(name, key -> new ArrayList<>())
                                    .add(result.p50Nanos() / 1000.0));
                }
                Map<String, List<Double>> batch = new LinkedHashMap<>();
                long sequence = 0;
                for (int round = 0; round < settings.rounds(); round++) {
                    for (CheckApproach approach : List.of(standalone, clustered)) {
                        batch.computeIfAbsent(approach.name(), name -> new ArrayList<>())
                                .add(batchMillis(approach, latency, sequence, settings.batchesPerRound()));
                        sequence += 1000L * settings.batchesPerRound();
                    }
                }
                long keys = settings.warmupSizes()[settings.warmupSizes().length - 1];
                String sql = "SELECT id FROM bench_users WHERE id <= " + keys;
                RedisBloomFilter big = RedisBloomFilter.builder("cluster-warm",
                        FilterGeometry.withShards(keys, FPP, 12), store).build();
                double clusterWarmup = time(() -> new SqlKeySource(dataSource, sql, 10_000).loadInto(big, false));
                RedisBloomFilter plainBig = RedisBloomFilter.builder("standalone-warm-again",
                        FilterGeometry.of(keys, FPP), standaloneStore).build();
                double standaloneWarmup = time(() -> new SqlKeySource(dataSource, sql, 10_000).loadInto(plainBig, false));
                report.append("## Redis Cluster\n\n")
                        .append("The same 1,000,000 keys in a filter of 6 shards on a real three-master cluster")
                        .append(" (loopback, started by the suite) against the one-key standalone filter; one thread.\n\n")
                        .append("| approach | 1 key p50 µs | batch of 1,000 p50 ms |\n|---|---|---|\n");
                for (String name : p50.keySet()) {
                    report.append("| ").append(name).append(" | ").append(Stats.spread(p50.get(name), "%.1f")).append(" | ")
                            .append(Stats.spread(batch.get(name), "%.2f")).append(" |\n");
                }
                report.append(String.format("%nWarmup of %,d keys from PostgreSQL: %.2f s into 12 shards on the cluster,"
                        + " %.2f s into one standalone key.%n%n", keys, clusterWarmup, standaloneWarmup));
            }
            finally {
                factory.destroy();
            }
        }
    }

    /**
     * One real filter larger than one Redis string can hold (2^32 bits): sharded, loaded, and
     * checked for false negatives and its false-positive rate. Keys are generated, not read from
     * PostgreSQL, to keep the run short.
     */
    private void pastOneRedisString(LettuceBitmapStore store) {
        long keys = 300_000_000L;
        double fpp = 0.001;
        FilterGeometry geometry = FilterGeometry.sharded(keys, fpp, 64L * 1024 * 1024 * 8);
        log("A filter past 2^32 bits: %,d keys at fpp %s, %d shards", keys, fpp, geometry.shards());
        RedisBloomFilter huge = RedisBloomFilter.builder("past-2-32", geometry, store).checkTimeout(Duration.ofSeconds(5))
                .build();
        long started = System.nanoTime();
        huge.load(LongStream.rangeClosed(1, keys).boxed());
        double seconds = (System.nanoTime() - started) / 1e9;
        long present = 0;
        for (long from = 1; from <= 100_000; from += 1000) {
            List<Long> ids = new ArrayList<>(1000);
            for (long i = 0; i < 1000; i++) {
                ids.add(1 + (from + i) * (keys / 100_001));
            }
            present += huge.checkAll(ids).stream().filter(answer -> answer == Membership.PRESENT).count();
        }
        long positives = 0;
        for (long from = 0; from < 200_000; from += 1000) {
            List<Long> ids = new ArrayList<>(1000);
            for (long i = 0; i < 1000; i++) {
                ids.add(keys + 1 + from + i);
            }
            positives += huge.checkAll(ids).stream().filter(answer -> answer == Membership.PRESENT).count();
        }
        long rawBits = (long) (-keys * Math.log(fpp) / (Math.log(2) * Math.log(2)));
        report.append("## A filter past one Redis string\n\n")
                .append(String.format("%,d keys at fpp %s need %,d bits, more than the 2^32 bits one Redis string holds;",
                        keys, fpp, rawBits))
                .append(String.format(" the filter is split into %d shards of %,d bits (64 MiB). Generated keys,", geometry.shards(),
                        geometry.bits()))
                .append(" standalone Redis.\n\n| | |\n|---|---|\n")
                .append(String.format("| load (build, upload, swap) | %.1f s, %,.0f keys/s |%n", seconds, keys / seconds))
                .append(String.format("| present keys checked | 100,000, of which passed: %,d |%n", present))
                .append(String.format("| absent keys checked | 200,000, measured fpp %.5f (theoretical %.5f) |%n%n",
                        positives / 200_000.0, geometry.expectedFpp(keys)));
        report.target("a filter past 2^32 bits loads and has no false negative", String.format("%,d of 100,000 present keys passed",
                present), present == 100_000);
        for (int shard = 0; shard < geometry.shards(); shard++) {
            store.delete(huge.keys().live(shard));
        }
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

    private void memory(StatefulRedisConnection<String, String> plain, RedisBloomFilter filter,
            RBloomFilter<String> redissonFilter) {
        log("Redis memory per filter");
        long bitmapBytes = filter.geometry().byteSize();
        var sync = plain.sync();
        long ours = sync.memoryUsage(filter.keys().live());
        long redissonBits = sync.memoryUsage(redissonFilter.getName());
        Long redissonConfig = sync.memoryUsage("{" + redissonFilter.getName() + "}:config");
        String setbitKey = "setbit-memory";
        sync.del(setbitKey);
        RedisAsyncCommands<String, String> async = plain.async();
        List<RedisFuture<Long>> pending = new ArrayList<>();
        long[] offsets = new long[filter.geometry().hashes()];
        for (long id = 1; id <= PRESENT; id++) {
            BitPositions.fill(id, filter.geometry().bits(), filter.geometry().hashes(), offsets, 0);
            for (long offset : offsets) {
                pending.add(async.setbit(setbitKey, offset, 1));
            }
            if (pending.size() >= 20_000) {
                awaitAll(pending);
            }
        }
        awaitAll(pending);
        long setbit = sync.memoryUsage(setbitKey);
        report.target("Redis memory within 1.1× of the bitmap", String.format("%.2f×", (double) ours / bitmapBytes),
                (double) ours / bitmapBytes <= 1.1);
        report.append("## Redis memory for ").append(String.format("%,d", PRESENT)).append(" keys at fpp ").append(FPP)
                .append("\n\n`MEMORY USAGE` of each approach's keys against the size of bloom-guard's bitmap (")
                .append(String.format("%,d", bitmapBytes)).append(" bytes).\n\n")
                .append("| approach | bytes in Redis | vs bitmap |\n|---|---|---|\n")
                .append(String.format("| bloom-guard (written whole) | %,d | %.2f× |%n", ours, (double) ours / bitmapBytes))
                .append(String.format("| Redisson (bits + config hash) | %,d | %.2f× |%n",
                        redissonBits + (redissonConfig == null ? 0 : redissonConfig),
                        (double) (redissonBits + (redissonConfig == null ? 0 : redissonConfig)) / bitmapBytes))
                .append(String.format("| same bits grown by SETBIT | %,d | %.2f× |%n%n", setbit, (double) setbit / bitmapBytes));
    }

    /** Stops a peer's load at the time cap. */
    private static final class CapReached extends RuntimeException {

        private static final long serialVersionUID = 1L;

        CapReached() {
            super(null, null, false, false);
        }
    }

}
