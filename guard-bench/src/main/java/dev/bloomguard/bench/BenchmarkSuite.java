package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.mirror.MirrorSettings;
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
 * longer rounds. {@code --runs N} (N odd) runs the whole suite N times, each in its own JVM, and
 * judges every target on the median run ({@link SuiteRuns}). {@code --only under-attack} (or
 * {@code --only redis-lost}) runs that scenario alone and replaces only its section and target rows
 * in the existing file. What follows
 * the "Total run time" line of the existing file was written by hand and is kept.
 *
 * <p>Each section comes from its own {@code ...Scenario} class, called here in the order the
 * file lists them; {@code Report} holds the header, the sections and the Targets rows.
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
        List<String> arguments = new ArrayList<>(List.of(args));
        Path docs = Path.of(option(arguments, "--docs", "docs"));
        String[] run = option(arguments, "--run", "1/1").split("/");
        int runs = Integer.parseInt(option(arguments, "--runs", "1"));
        boolean full = arguments.contains("--full");
        SuiteSettings settings = full
                ? new SuiteSettings("full", 5, 20_000, 50_000, 2_000, 10_000, 500, 30_000, new long[] { 1_000_000, 10_000_000 }, 1_000_000)
                : new SuiteSettings("quick", 3, 3_000, 10_000, 500, 2_000, 100, 8_000, new long[] { 1_000_000, 10_000_000 }, 1_000_000);
        Files.createDirectories(docs);
        int only = arguments.indexOf("--only");
        if (only >= 0 && runs > 1) {
            throw new IllegalArgumentException("--only runs one scenario once; it does not take --runs (" + runs + ")");
        }
        if (only >= 0) {
            String scenario = only + 1 < arguments.size() ? arguments.get(only + 1) : "";
            BenchmarkSuite suite = new BenchmarkSuite(settings, docs);
            if (scenario.equals(UnderAttackScenario.MARKER)) {
                suite.underAttackAlone();
            }
            else if (scenario.equals(RedisLostScenario.MARKER)) {
                suite.redisLostAlone();
            }
            else {
                throw new IllegalArgumentException("--only (" + scenario + ") must be " + UnderAttackScenario.MARKER + " or "
                        + RedisLostScenario.MARKER);
            }
            return;
        }
        if (runs > 1) {
            severalRuns(runs, arguments, docs);
            return;
        }
        int ofRuns = Integer.parseInt(run[1]);
        BenchmarkSuite suite = new BenchmarkSuite(settings, docs);
        suite.run((String.join(" ", arguments) + (ofRuns > 1 ? " --runs " + ofRuns : "")).trim(), ofRuns);
        if (ofRuns > 1) {
            SuiteRuns.write(docs, suite.report.targets());
        }
    }

    /**
     * Removes {@code name} and its value from {@code arguments}, returning the value, or
     * {@code otherwise} when it is not there.
     */
    private static String option(List<String> arguments, String name, String otherwise) {
        int at = arguments.indexOf(name);
        if (at < 0) {
            return otherwise;
        }
        if (at + 1 >= arguments.size()) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        String value = arguments.remove(at + 1);
        arguments.remove(at);
        return value;
    }

    /** {@code --runs N}: see {@link SuiteRuns}; the file gets the last run's sections. */
    private static void severalRuns(int runs, List<String> arguments, Path docs) throws Exception {
        if (runs % 2 == 0) {
            throw new IllegalArgumentException("--runs (" + runs + ") must be odd: the median must be a run's own figure");
        }
        long started = System.nanoTime();
        List<Path> directories = SuiteRuns.runEach(runs, arguments, Files.createTempDirectory("bloom-guard-bench-"));
        List<List<Target>> targets = new ArrayList<>();
        for (Path directory : directories) {
            targets.add(SuiteRuns.read(directory));
        }
        Path last = directories.get(runs - 1);
        String document = Files.readString(last.resolve("benchmarks.md")).replaceFirst("\nTotal run time: (\\d+) s\\.\n",
                "\nTotal run time: " + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s for " + runs
                        + " runs (the last, whose sections these are: $1 s).\n");
        try (var charts = Files.list(last)) {
            for (Path chart : charts.filter(file -> file.toString().endsWith(".png")).toList()) {
                Files.copy(chart, docs.resolve(chart.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        write(docs, ReportSections.targetsSection(document, SuiteRuns.table(targets)));
    }

    /** Writes {@code document} as {@code docs/benchmarks.md}, keeping what was written by hand after the last run. */
    private static void write(Path docs, String document) throws IOException {
        Path file = docs.resolve("benchmarks.md");
        String kept = Files.exists(file) ? ReportSections.handWritten(Files.readString(file)) : "";
        Files.writeString(file, document + kept);
        log("Wrote %s", file.toAbsolutePath());
    }

    private void run(String arguments, int runs) throws Exception {
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
                header(arguments, runs, plain, postgres);
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
                        .mirror(MirrorSettings.of(64L << 20, Duration.ofMinutes(10))).build();
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
                JournalReplayScenario.run(report, store, plain);
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
        new GuardOverheadScenario(settings, report).run();
        new EndToEndScenario(settings, report).run();
        underAttack();
        redisLost();
        report.append("\nTotal run time: ").append(Duration.ofNanos(System.nanoTime() - started).toSeconds())
                .append(" s.\n");
        write(docs, report.document());
    }

    private void header(String arguments, int runs, StatefulRedisConnection<String, String> redis, PostgresServer postgres)
            throws SQLException {
        String redisVersion = redis.sync().info("server").lines().filter(line -> line.startsWith("redis_version:"))
                .findFirst().orElse("redis_version:?").substring("redis_version:".length()).trim();
        String postgresVersion;
        try (Connection connection = postgres.dataSource().getConnection()) {
            postgresVersion = connection.getMetaData().getDatabaseProductVersion();
        }
        report.header(arguments, settings, runs, redisVersion, postgresVersion);
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
        result.targets().forEach(row -> log("Target: %s: %s (%s)", row.name(), row.measured(), row.met() ? "met" : "not met"));
        log("Wrote the under-attack section of %s", file.toAbsolutePath());
    }

    private RedisLostReport redisLostReport() throws Exception {
        RedisLostScenario.Settings lost = settings.name().equals("full")
                ? new RedisLostScenario.Settings(5, 1_000, 5_000, 10_000, 2, 20, 6)
                : new RedisLostScenario.Settings(2, 1_000, 3_000, 5_000, 2, 20, 6);
        RedisLostReport result = new RedisLostReport(lost, new RedisLostScenario(DemoProcess.JAR, lost).run());
        result.chart(docs);
        return result;
    }

    private void redisLost() throws Exception {
        RedisLostReport result = redisLostReport();
        report.append(result.section(false)).append('\n');
        report.targets(result.targets());
    }

    /** {@code --only redis-lost}: replaces that section and its target in the existing file. */
    private void redisLostAlone() throws Exception {
        RedisLostReport result = redisLostReport();
        Path file = docs.resolve("benchmarks.md");
        String document = Files.exists(file) ? Files.readString(file) : "# Benchmarks\n";
        document = ReportSections.splice(document, RedisLostScenario.MARKER, result.section(true));
        Files.writeString(file, ReportSections.targets(document, RedisLostReport.TARGET_PREFIX, result.targets()));
        result.targets().forEach(row -> log("Target: %s: %s (%s)", row.name(), row.measured(), row.met() ? "met" : "not met"));
        log("Wrote the redis-lost section of %s", file.toAbsolutePath());
    }
}
