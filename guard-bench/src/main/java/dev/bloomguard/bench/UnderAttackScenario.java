package dev.bloomguard.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.bloomguard.bench.UnderAttackFigures.Result;
import dev.bloomguard.bench.UnderAttackFigures.Round;
import dev.bloomguard.bench.UnderAttackFigures.Run;
import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.hash.BitPositions;

/**
 * The demo under attack (issue 14): client threads look up real users while attacker threads
 * send random absent ids and a handful of false positives (absent ids the filter lets through),
 * against the demo's own jar started three times: without the guard, with the guard alone, and
 * with the guard, remembered misses ({@code negative-cache}) and {@code single-flight}. Measures
 * the database queries per second and the latency of the real-key lookups.
 *
 * <p>The false positives are computed offline, as the issue says an attacker can: the demo's
 * filter geometry is public ({@code application.yml}: 2,000,000 expected insertions at fpp 0.01,
 * Murmur3 with seed 0) and so are its users (ids 1..1,000,000), so the bits are rebuilt here and
 * absent ids are tried until enough pass. Each one is then confirmed over HTTP on every guarded
 * demo before the traffic starts: it must answer 404 and cost exactly one database query.
 *
 * <p>The configurations, the false-positive search and the traffic; the records of its figures are
 * {@link UnderAttackFigures}, the section, chart and targets {@link UnderAttackReport}'s.
 */
final class UnderAttackScenario {

    /** Ids of the demo's seeded users ({@code demo.users}). */
    static final long USERS = 1_000_000;

    /** The demo's filter {@code user}, as its {@code application.yml} declares it. */
    private static final long EXPECTED_INSERTIONS = 2_000_000;
    private static final double FPP = 0.01;
    private static final long MAX_SHARD_BITS = 64L * 1024 * 1024 * 8;

    /** Where the absent ids start: far above every user the demo has or creates. */
    static final long ABSENT_FROM = 5_000_000_000L;

    static final String MARKER = "under-attack";

    /** One configuration of the demo. */
    record Configuration(String label, List<String> properties) {
    }

    static final List<Configuration> CONFIGURATIONS = List.of(
            new Configuration("no guard", List.of("--bloom-guard.enabled=false")),
            new Configuration("guard alone", List.of("--bloom-guard.filters.user.negative-cache.enabled=false",
                    "--bloom-guard.filters.user.single-flight=false")),
            new Configuration("guard + remembered misses + single flight",
                    List.of("--bloom-guard.filters.user.negative-cache.enabled=true",
                            "--bloom-guard.filters.user.negative-cache.ttl=1m",
                            "--bloom-guard.filters.user.single-flight=true")));

    /**
     * @param rounds measured windows per configuration, the configurations taking turns
     * @param realThreads client threads looking up existing users, whose latency is measured
     * @param attackThreads attacker threads, half their requests to {@code falsePositives} ids in
     *     turn, half to random absent ids
     */
    record Settings(int rounds, long warmupMillis, long measureMillis, int realThreads, int attackThreads,
            int falsePositives) {
    }

    private final Path jar;
    private final Settings settings;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    UnderAttackScenario(Path jar, Settings settings) {
        this.jar = jar;
        this.settings = settings;
    }

    /**
     * The three configurations in {@link #CONFIGURATIONS} order, against the same false positives.
     * The three demos run side by side (an idle one costs next to nothing) and take turns, a
     * measured window each per round, so that a change in the machine's load between rounds
     * falls on all three alike. A first round, not counted, warms the three JVMs up.
     */
    Run run() throws Exception {
        long[] falsePositives = falsePositives(settings.falsePositives());
        log("False positives of the demo's filter, computed offline: %s", Arrays.toString(falsePositives));
        List<DemoProcess> demos = new ArrayList<>();
        try {
            List<List<Round>> rounds = new ArrayList<>();
            for (Configuration configuration : CONFIGURATIONS) {
                log("Under attack: starting the demo, %s", configuration.label());
                DemoProcess demo = DemoProcess.start(jar, http, configuration.properties());
                demos.add(demo);
                if (guarded(configuration)) {
                    confirm(demo, falsePositives);
                }
                rounds.add(new ArrayList<>());
            }
            for (int round = 0; round <= settings.rounds(); round++) {
                for (int c = 0; c < CONFIGURATIONS.size(); c++) {
                    Round last = measure(CONFIGURATIONS.get(c).label(), demos.get(c), falsePositives, round);
                    if (round == 0) {
                        continue;
                    }
                    rounds.get(c).add(last);
                    log("  round %d, %s: %,.0f database queries/s, %.4f per attacker request; real keys p50 %.2f ms,"
                            + " p99 %.2f ms; %,d real, %,d attacker requests; %d real keys refused, %d errors", round,
                            CONFIGURATIONS.get(c).label(), last.queriesPerSecond(), last.queriesPerAttack(),
                            Result.p50Millis(last), Result.p99Millis(last), last.realRequests(), last.attackRequests(),
                            last.realRefused(), last.errors());
                }
            }
            List<Result> results = new ArrayList<>();
            for (int c = 0; c < CONFIGURATIONS.size(); c++) {
                results.add(new Result(CONFIGURATIONS.get(c).label(), List.copyOf(rounds.get(c))));
            }
            return new Run(falsePositives, results);
        }
        finally {
            for (DemoProcess demo : demos) {
                demo.close();
            }
        }
    }

    private static boolean guarded(Configuration configuration) {
        return !configuration.properties().contains("--bloom-guard.enabled=false");
    }

    /**
     * The first {@code count} ids from {@link #ABSENT_FROM} on that the demo's filter, loaded with
     * every user id, lets through: the filter's bits rebuilt from its public geometry.
     */
    static long[] falsePositives(int count) {
        FilterGeometry geometry = FilterGeometry.sharded(EXPECTED_INSERTIONS, FPP, MAX_SHARD_BITS);
        if (geometry.shards() != 1 || geometry.bits() > Integer.MAX_VALUE) {
            throw new IllegalStateException("the demo's filter is no longer one small shard: " + geometry);
        }
        BitSet bits = new BitSet((int) geometry.bits());
        long[] offsets = new long[geometry.hashes()];
        for (long id = 1; id <= USERS; id++) {
            BitPositions.fill(id, geometry.bits(), geometry.hashes(), offsets, 0);
            for (long offset : offsets) {
                bits.set((int) offset);
            }
        }
        long[] found = new long[count];
        int next = 0;
        for (long id = ABSENT_FROM; next < count; id++) {
            BitPositions.fill(id, geometry.bits(), geometry.hashes(), offsets, 0);
            if (Arrays.stream(offsets).allMatch(offset -> bits.get((int) offset))) {
                found[next++] = id;
            }
        }
        return found;
    }

    /** One window; every configuration gets the same ids in the same round, new ones in the next. */
    private Round measure(String label, DemoProcess demo, long[] falsePositives, int round) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicLong realRequests = new AtomicLong();
        AtomicLong attackRequests = new AtomicLong();
        AtomicLong realRefused = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<long[]> latencies = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < settings.realThreads() + settings.attackThreads(); t++) {
            boolean real = t < settings.realThreads();
            SplittableRandom random = new SplittableRandom(7919L * (t + 1) + 1_000_003L * round);
            Thread thread = new Thread(() -> {
                long[] nanos = new long[1024];
                int recorded = 0;
                long turn = 0;
                try {
                    while (running.get()) {
                        long id = real ? random.nextLong(1, USERS + 1)
                                : (++turn & 1) == 0 ? falsePositives[(int) ((turn >> 1) % falsePositives.length)]
                                        : ABSENT_FROM + 1_000_000 + random.nextLong(1_000_000_000L);
                        long started = System.nanoTime();
                        int status = http.send(HttpRequest.newBuilder(URI.create(demo.base() + "/users/" + id)).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode();
                        long took = System.nanoTime() - started;
                        if (!measuring.get()) {
                            continue;
                        }
                        if (real) {
                            realRequests.incrementAndGet();
                            if (status != 200) {
                                realRefused.incrementAndGet();
                                log("  real key %d answered %d", id, status);
                            }
                            if (recorded == nanos.length) {
                                nanos = Arrays.copyOf(nanos, nanos.length * 2);
                            }
                            nanos[recorded++] = took;
                        }
                        else {
                            attackRequests.incrementAndGet();
                            if (status != 404) {
                                errors.incrementAndGet();
                            }
                        }
                    }
                }
                catch (Throwable ex) {
                    failures.add(ex);
                }
                finally {
                    latencies.add(Arrays.copyOf(nanos, recorded));
                }
            }, (real ? "real-" : "attacker-") + t);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        Thread.sleep(settings.warmupMillis());
        long queriesBefore = demo.databaseQueries();
        measuring.set(true);
        long started = System.nanoTime();
        Thread.sleep(settings.measureMillis());
        measuring.set(false);
        double seconds = (System.nanoTime() - started) / 1e9;
        long queries = demo.databaseQueries() - queriesBefore;
        running.set(false);
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException(label + ": requests failed", failures.get(0));
        }
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new Round(seconds, realRequests.get(), attackRequests.get(), queries, all, realRefused.get(),
                errors.get());
    }

    /** Each false positive must answer 404 and cost the guarded demo exactly one query. */
    private static void confirm(DemoProcess demo, long[] falsePositives) throws Exception {
        for (long id : falsePositives) {
            long before = demo.databaseQueries();
            int status = demo.status("/users/" + id);
            long cost = demo.databaseQueries() - before;
            if (status != 404 || cost != 1) {
                throw new IllegalStateException("computed false positive " + id + " answered " + status + " and cost "
                        + cost + " queries, not 404 and 1: the demo's filter geometry or users changed");
            }
        }
    }

    private static void log(String format, Object... arguments) {
        System.out.printf(Locale.ROOT, "[bench] " + format + "%n", arguments);
    }
}
