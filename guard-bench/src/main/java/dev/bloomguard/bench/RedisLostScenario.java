package dev.bloomguard.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.bloomguard.bench.RedisLostFigures.Counts;
import dev.bloomguard.bench.RedisLostFigures.Phase;
import dev.bloomguard.bench.RedisLostFigures.Result;
import dev.bloomguard.bench.RedisLostFigures.Round;
import dev.bloomguard.embedded.RedisServer;

/**
 * Redis lost under attack (issue 36): attacker threads send random absent ids to the demo as fast
 * as it answers while real users look up existing ids, and halfway through the demo's Redis is
 * stopped. The demo's own jar runs three times, each instance pointed at a {@code redis-server}
 * this scenario starts (so that it can stop it; the demo starts its own only when
 * {@code spring.data.redis.host} is not set): without the guard, with the guard failing open
 * ({@code bypass.when-exhausted=allow}), and with the guard and a bypass budget of
 * {@value #MAX_RATE} calls/s that sheds the rest (503). Measures, with Redis up and with Redis
 * down, the database queries per second, the real users' success rate and the attackers' rate.
 *
 * <p>After each round the server is started again, empty, on the same port; the guarded demos
 * re-warm their filter by themselves, and the next round waits until each blocks again. The
 * section and chart are {@link RedisLostReport}'s.
 */
final class RedisLostScenario {

    static final String MARKER = "redis-lost";

    /** {@code bypass.max-rate} of the budgeted configuration: about twice the real users' own rate. */
    static final int MAX_RATE = 200;

    /** One configuration of the demo; {@code shortLabel} names it in the chart. */
    record Configuration(String label, String shortLabel, boolean guarded, List<String> properties) {
    }

    static final List<Configuration> CONFIGURATIONS = List.of(
            new Configuration("no guard", "no guard", false, List.of("--bloom-guard.enabled=false")),
            new Configuration("guard failing open (when-exhausted=allow)", "guard, fail open", true,
                    List.of("--bloom-guard.filters.user.bypass.when-exhausted=allow")),
            new Configuration("guard with a budget (max-rate=" + MAX_RATE + ", shed)", "guard, budget " + MAX_RATE + "/s",
                    true, List.of("--bloom-guard.filters.user.bypass.max-rate=" + MAX_RATE)));

    /**
     * @param rounds measured rounds per configuration, after one that is not counted; the
     *     configurations take turns
     * @param settleMillis traffic before the first phase, not counted
     * @param upMillis the phase with Redis up
     * @param downMillis the phase after Redis is stopped
     * @param realThreads real users, each looking up a random existing id, then pausing
     *     {@code realPauseMillis}
     * @param attackThreads attackers, each sending a random absent id as soon as the last is answered
     */
    record Settings(int rounds, long settleMillis, long upMillis, long downMillis, int realThreads, long realPauseMillis,
            int attackThreads) {
    }

    private static final Duration RECOVERY = Duration.ofMinutes(2);

    private final Path jar;
    private final Settings settings;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    RedisLostScenario(Path jar, Settings settings) {
        this.jar = jar;
        this.settings = settings;
    }

    /** One result per configuration, in {@link #CONFIGURATIONS} order. */
    List<Result> run() throws Exception {
        List<RedisServer> servers = new ArrayList<>();
        List<DemoProcess> demos = new ArrayList<>();
        try {
            List<List<Round>> rounds = new ArrayList<>();
            for (Configuration configuration : CONFIGURATIONS) {
                RedisServer redis = RedisServer.start();
                servers.add(redis);
                log("Redis lost: starting the demo, %s, on the redis-server at %s:%d", configuration.label(), redis.host(),
                        redis.port());
                List<String> properties = new ArrayList<>(configuration.properties());
                properties.addAll(List.of("--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port()));
                demos.add(DemoProcess.start(jar, http, properties));
                rounds.add(new ArrayList<>());
            }
            for (int round = 0; round <= settings.rounds(); round++) {
                for (int c = 0; c < CONFIGURATIONS.size(); c++) {
                    Configuration configuration = CONFIGURATIONS.get(c);
                    Round last = measure(demos.get(c), servers.get(c), round);
                    recover(configuration, demos.get(c), servers.get(c));
                    if (round == 0) {
                        continue;
                    }
                    rounds.get(c).add(last);
                    log("  round %d, %s: Redis up %,.0f queries/s, real users %.1f%% served, %,.0f attacker requests/s;"
                            + " Redis down %,.0f queries/s, real users %.1f%% served, %,.0f attacker requests/s, %s", round,
                            configuration.label(), last.up().queriesPerSecond(), 100 * last.up().realSuccess(),
                            last.up().attackRequestsPerSecond(), last.down().queriesPerSecond(),
                            100 * last.down().realSuccess(), last.down().attackRequestsPerSecond(), last.down().counts());
                }
            }
            List<Result> results = new ArrayList<>();
            for (int c = 0; c < CONFIGURATIONS.size(); c++) {
                results.add(new Result(CONFIGURATIONS.get(c).label(), CONFIGURATIONS.get(c).shortLabel(),
                        List.copyOf(rounds.get(c))));
            }
            return results;
        }
        finally {
            for (DemoProcess demo : demos) {
                demo.close();
            }
            servers.forEach(RedisServer::close);
        }
    }

    /** One round: traffic, a phase with Redis up, Redis stopped, a phase with it down. */
    private Round measure(DemoProcess demo, RedisServer redis, int round) throws Exception {
        try (Traffic traffic = new Traffic(demo, round)) {
            Thread.sleep(settings.settleMillis());
            Counts atStart = traffic.counts();
            long queriesAtStart = demo.databaseQueries();
            long started = System.nanoTime();
            Thread.sleep(settings.upMillis());
            Counts atStop = traffic.counts();
            long queriesAtStop = demo.databaseQueries();
            long stopped = System.nanoTime();
            redis.stop();
            Thread.sleep(Math.max(0, settings.downMillis() - (System.nanoTime() - stopped) / 1_000_000));
            Counts atEnd = traffic.counts();
            long queriesAtEnd = demo.databaseQueries();
            long ended = System.nanoTime();
            Phase up = new Phase((stopped - started) / 1e9, queriesAtStop - queriesAtStart, atStop.minus(atStart));
            Phase down = new Phase((ended - stopped) / 1e9, queriesAtEnd - queriesAtStop, atEnd.minus(atStop));
            return new Round(up, down);
        }
    }

    /**
     * Starts the server again (empty, as a Redis without persistence comes back) and, for a
     * guarded demo, waits until its filter, re-warmed by the demo itself, blocks absent ids again.
     */
    private void recover(Configuration configuration, DemoProcess demo, RedisServer redis) throws Exception {
        redis.restart();
        if (!configuration.guarded()) {
            return;
        }
        long started = System.nanoTime();
        long deadline = started + RECOVERY.toNanos();
        SplittableRandom random = new SplittableRandom(17);
        while (System.nanoTime() < deadline) {
            long blocked = demo.blocked();
            demo.status("/users/" + (UnderAttackScenario.ABSENT_FROM + random.nextLong(1_000_000_000L)));
            if (demo.blocked() > blocked) {
                log("  %s: Redis back, the filter blocks again after %.1f s", configuration.label(),
                        (System.nanoTime() - started) / 1e9);
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(configuration.label() + ": the filter did not block again within " + RECOVERY
                + " of Redis coming back");
    }

    /** The client threads of one round and what they counted; closing stops them. */
    private final class Traffic implements AutoCloseable {

        private final DemoProcess demo;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong realRequests = new AtomicLong();
        private final AtomicLong realServed = new AtomicLong();
        private final AtomicLong realShed = new AtomicLong();
        private final AtomicLong attackRequests = new AtomicLong();
        private final AtomicLong attackShed = new AtomicLong();
        private final AtomicLong realErrors = new AtomicLong();
        private final AtomicLong attackErrors = new AtomicLong();
        private final AtomicReference<String> firstError = new AtomicReference<>();
        private final List<Thread> threads = new ArrayList<>();

        Traffic(DemoProcess demo, int round) {
            this.demo = demo;
            for (int t = 0; t < settings.realThreads() + settings.attackThreads(); t++) {
                boolean real = t < settings.realThreads();
                SplittableRandom random = new SplittableRandom(7919L * (t + 1) + 1_000_003L * round);
                Thread thread = new Thread(() -> {
                    while (running.get()) {
                        if (real) {
                            realUser(random);
                        }
                        else {
                            attack(random);
                        }
                    }
                }, (real ? "real-" : "attacker-") + t);
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
        }

        private void realUser(SplittableRandom random) {
            long id = random.nextLong(1, UnderAttackScenario.USERS + 1);
            int status = get(id);
            realRequests.incrementAndGet();
            if (status == 200) {
                realServed.incrementAndGet();
            }
            else if (status == 503) {
                realShed.incrementAndGet();
            }
            else {
                error(realErrors, "real user " + id + " answered " + status);
            }
            try {
                Thread.sleep(settings.realPauseMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                running.set(false);
            }
        }

        private void attack(SplittableRandom random) {
            long id = UnderAttackScenario.ABSENT_FROM + 1_000_000 + random.nextLong(1_000_000_000L);
            int status = get(id);
            attackRequests.incrementAndGet();
            if (status == 503) {
                attackShed.incrementAndGet();
            }
            else if (status != 404) {
                error(attackErrors, "absent id " + id + " answered " + status);
            }
        }

        /** The status of {@code GET /users/id}, or -1 when the request failed. */
        private int get(long id) {
            try {
                return http.send(HttpRequest.newBuilder(URI.create(demo.base() + "/users/" + id)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                running.set(false);
                return -1;
            }
            catch (Exception ex) {
                firstError.compareAndSet(null, "GET /users/" + id + " failed: " + ex);
                return -1;
            }
        }

        private void error(AtomicLong errors, String what) {
            errors.incrementAndGet();
            firstError.compareAndSet(null, what);
        }

        Counts counts() {
            return new Counts(realRequests.get(), realServed.get(), realShed.get(), realErrors.get(), attackRequests.get(),
                    attackShed.get(), attackErrors.get());
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
            String error = firstError.get();
            if (error != null) {
                log("  first error of the round: %s", error);
            }
        }
    }

    private static void log(String format, Object... arguments) {
        System.out.printf(Locale.ROOT, "[bench] " + format + "%n", arguments);
    }
}
