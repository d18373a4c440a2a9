package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.log;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.LongStream;

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
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.embedded.PostgresServer;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.redis.SpringDataLettuceConnections;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

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
                new FalsePositiveScenario(settings, report, docs).run(filter, redissonFilter, store);
                new WarmupScenario(settings, report, docs).run(postgres.dataSource(), store, redisson, plain);
                journalReplay(store, plain);
                new ClusterScenario(settings, report).run(postgres.dataSource(), peers.bloomGuard(), store);
                new PastOneRedisStringScenario(report).run(store);
                new MemoryScenario(report).run(plain, filter, redissonFilter);
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

}
