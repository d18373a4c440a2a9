package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.misses.MissKeys;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.RunningTime;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BootIndependent;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A real {@code redis-server} stopped, restarted empty, flushed, paused, made a read-only
 * replica and out of memory under guarded traffic. Whatever Redis does, no caller sees a Redis
 * exception, no present key is blocked, and blocking comes back once the filter is warm again
 * (the traffic outruns the bypass budget, so those tests let calls beyond it through: {@link #start}).
 */
class RedisOutageTests {

    private static final Logger log = LoggerFactory.getLogger(RedisOutageTests.class);

    /** Present ids are the even numbers 2..100,000. */
    private static final String TABLE = "outage_users";
    private static final String WARMUP_SQL = "SELECT id FROM " + TABLE;
    private static final Duration REDIS_TIMEOUT = Duration.ofMillis(50);
    private static final Duration MARGIN = Duration.ofMillis(150);

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static int testNumber;

    @BeforeAll
    static void startServers() {
        GuardedApp.createUsers(TABLE, 50000);
    }

    @BeforeEach
    void redisIsUp() {
        if (!REDIS.server().isRunning()) {
            REDIS.server().restart();
        }
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void redisStoppedMidTrafficNeverFailsACallerAndTheFilterComesBackByItself(GuardedApp.Source source) throws Exception {
        try (ConfigurableApplicationContext context = start(source)) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            BitmapStore store = context.getBean(BitmapStore.class);
            List<Long> absent = absentKeys(filter, 50);
            assertThatThrownBy(() -> directory.find(absent.get(0))).isInstanceOf(BloomGuardRejectedException.class);

            try (Traffic traffic = new Traffic(directory, presentSample(), absent, 4)) {
                Await.until("traffic runs", Duration.ofSeconds(5), () -> traffic.calls() > 200);
                REDIS.server().stop();
                traffic.pause();

                double bypassedBefore = bypassed(context);
                double redisErrorsBefore = bypassed(context, "redis-error");
                double openCircuitBefore = bypassed(context, "circuit-open");
                long[] closedCircuit = timeCalls(directory, 3, absent.get(1));
                assertThat(bypassed(context) - bypassedBefore).as("every call while Redis is down is bypassed")
                        .isEqualTo(3);
                assertThat(store.circuitState()).isEqualTo(CircuitBreaker.State.OPEN);
                assertThat(context.getBean(MeterRegistry.class).get("bloomguard.circuit.state").gauge().value())
                        .as("2: open").isEqualTo(2.0);
                long[] openCircuit = timeCalls(directory, 1000, absent.get(2));
                assertThat(bypassed(context) - bypassedBefore).isEqualTo(1003);
                // The traffic's failures may have opened the circuit before the first three calls.
                double redisErrors = bypassed(context, "redis-error") - redisErrorsBefore;
                double circuitOpen = bypassed(context, "circuit-open") - openCircuitBefore;
                assertThat(redisErrors + circuitOpen).as("reasons redis-error and circuit-open").isEqualTo(1003);
                assertThat(circuitOpen).as("reason=circuit-open once the circuit is open").isGreaterThanOrEqualTo(1000);
                log.info("Check latency with Redis down: circuit closed max {} µs; circuit open p50 {} µs, p99 {} µs",
                        max(closedCircuit) / 1000, percentile(openCircuit, 50) / 1000, percentile(openCircuit, 99) / 1000);
                assertThat(max(closedCircuit)).as("a check with Redis down costs at most redis-timeout plus a margin")
                        .isLessThan(REDIS_TIMEOUT.plus(MARGIN).toNanos());
                assertThat(percentile(openCircuit, 50)).as("open circuit: microseconds, no Redis wait")
                        .isLessThan(Duration.ofMillis(1).toNanos());
                assertThat(max(openCircuit)).isLessThan(REDIS_TIMEOUT.plus(MARGIN).toNanos());
                // The row commits (no transaction): its add waits for Redis instead of being lost.
                long createdWhileDown = directory.create();
                assertThat(directory.find(createdWhileDown)).isEqualTo(createdWhileDown);

                traffic.resume();
                REDIS.server().restart();
                long restarted = System.nanoTime();
                Await.until("filter re-warmed after an empty restart", Duration.ofSeconds(30),
                        () -> filter.check(absent.get(3)) == Membership.ABSENT);
                log.info("Filter re-warmed {} ms after Redis restarted empty",
                        Duration.ofNanos(System.nanoTime() - restarted).toMillis());
                Await.until("the add made while Redis was down landed, and the guard blocks again", Duration.ofSeconds(10),
                        () -> rejects(() -> directory.find(absent.get(3))));
                assertThat(filter.check(createdWhileDown)).isEqualTo(Membership.PRESENT);
                assertThat(directory.find(createdWhileDown)).isEqualTo(createdWhileDown);
                assertThat(directory.find(2)).isEqualTo(2);
                assertThat(traffic.presentBlocked()).as("present keys blocked").isZero();
                assertThat(traffic.unexpected()).as("exceptions other than rejections").isEmpty();
            }
        }
    }

    @Test
    void onRedisFailureBlockRejectsCallsWhileRedisIsDownAndCountsThemBypassed() throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), "outage" + (++testNumber), TABLE,
                WARMUP_SQL, "bloom-guard.on-redis-failure=block")) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            GuardedApp.Users users = context.getBean(GuardedApp.Users.class);
            assertThat(directory.find(2)).isEqualTo(2);
            REDIS.server().stop();
            double before = bypassed(context);
            long calls = users.calls();
            for (int i = 0; i < 10; i++) {
                RunningTime call = RunningTime.start();
                assertThatThrownBy(() -> directory.find(2)).as("fail closed").isInstanceOf(BloomGuardRejectedException.class);
                assertThat(withinAllowance(call.stop())).isLessThan(REDIS_TIMEOUT.plus(MARGIN).toNanos());
            }
            assertThat(bypassed(context) - before).isEqualTo(10);
            assertThat(users.calls()).as("no rejected call reached the repository").isEqualTo(calls);
            REDIS.server().restart();
            Await.until("guarding again after the restart", Duration.ofSeconds(30), () -> !rejects(directory, 2));
        }
    }

    @Test
    void reactiveCallsWhileRedisIsPausedOrDownAreBypassedWithinTheTimeoutAndAddsFailLoudly() throws Exception {
        try (ConfigurableApplicationContext context = start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            List<Long> absent = absentKeys(filter, 3);
            assertThatThrownBy(() -> directory.findLater(absent.get(0)).block())
                    .isInstanceOf(BloomGuardRejectedException.class);

            admin.sync().clientPause(1_500);
            double before = bypassed(context);
            RunningTime call = RunningTime.start();
            assertThat(directory.findLater(absent.get(1)).block()).as("bypassed, not failed").isEqualTo(absent.get(1));
            long paused = withinAllowance(call.stop());
            log.info("Reactive check with Redis paused (CLIENT PAUSE), circuit closed: {} µs", paused / 1000);
            assertThat(paused).as("the asynchronous timeout bounds the wait").isLessThan(REDIS_TIMEOUT.plus(MARGIN).toNanos());
            assertThat(bypassed(context) - before).isEqualTo(1);
            Await.until("blocking again after the pause", Duration.ofSeconds(10),
                    () -> rejects(() -> directory.findLater(absent.get(1)).block()));

            REDIS.server().stop();
            for (int i = 0; i < 5; i++) {
                RunningTime downCall = RunningTime.start();
                assertThat(directory.findLater(absent.get(2)).block()).isEqualTo(absent.get(2));
                assertThat(withinAllowance(downCall.stop())).isLessThan(REDIS_TIMEOUT.plus(MARGIN).toNanos());
            }
            assertThatThrownBy(() -> directory.createLater().block()).as("an add cannot be lost silently")
                    .isInstanceOf(BloomGuardException.class).hasMessageContaining("could not add");
        }
    }

    @Test
    void reactiveCallsUnderOnRedisFailureBlockFailClosedWhileRedisIsDown() throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), "outage" + (++testNumber), TABLE,
                WARMUP_SQL, "bloom-guard.on-redis-failure=block")) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            GuardedApp.Users users = context.getBean(GuardedApp.Users.class);
            assertThat(directory.findLater(2).block()).isEqualTo(2);
            REDIS.server().stop();
            long calls = users.calls();
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> directory.findLater(2).block()).as("fail closed")
                        .isInstanceOf(BloomGuardRejectedException.class);
            }
            assertThat(users.calls()).as("no rejected call reached the repository").isEqualTo(calls);
        }
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void flushAllUnderTrafficBlocksNoPresentKeyAndBlockingResumesAfterReWarm(GuardedApp.Source source) throws Exception {
        try (ConfigurableApplicationContext context = start(source);
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            List<Long> absent = absentKeys(filter, 50);
            try (Traffic traffic = new Traffic(directory, presentSample(), absent, 4)) {
                Await.until("traffic runs", Duration.ofSeconds(5), () -> traffic.calls() > 200);
                long flushed = System.nanoTime();
                admin.sync().flushall();
                Await.until("filter re-warmed after FLUSHALL", Duration.ofSeconds(30),
                        () -> filter.check(absent.get(0)) == Membership.ABSENT);
                log.info("Filter re-warmed {} ms after FLUSHALL", Duration.ofNanos(System.nanoTime() - flushed).toMillis());
                long callsAfter = traffic.calls();
                Await.until("more traffic", Duration.ofSeconds(5), () -> traffic.calls() > callsAfter + 200);
                assertThat(traffic.presentBlocked()).as("present keys blocked").isZero();
                assertThat(traffic.unexpected()).isEmpty();
            }
            assertThatThrownBy(() -> directory.find(absent.get(0))).isInstanceOf(BloomGuardRejectedException.class);
        }
    }

    /**
     * Two filters share the store, and so its breaker: each transition is counted in
     * {@code bloomguard.circuit.transitions} and logged once, not once per filter. Once the circuit
     * closes and the filter is warm again, absent keys are rejected and present ones found.
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void eachCircuitTransitionIsCountedAndLoggedOnceWhateverTheFiltersSharingIt(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), "outage" + (++testNumber), TABLE,
                WARMUP_SQL, "bloom-guard.filters.order.expected-insertions=1000")) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            BloomFilterRegistry filters = context.getBean(BloomFilterRegistry.class);
            assertThat(filters.names()).containsExactlyInAnyOrder("user", "order");
            BitmapStore store = context.getBean(BitmapStore.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            List<Long> absent = absentKeys(filters.filter("user"), 2);
            assertThat(meters.get("bloomguard.circuit.transitions").counters()).as("registered up front, all zero")
                    .hasSize(5).allSatisfy(counter -> assertThat(counter.count()).isZero());
            int logged = output.length();

            REDIS.server().stop();
            for (int i = 0; i < 3; i++) {
                assertThat(directory.find(absent.get(0))).as("bypassed").isEqualTo(absent.get(0));
            }

            assertThat(store.circuitState()).isEqualTo(CircuitBreaker.State.OPEN);
            assertThat(transitions(meters, "closed", "open")).as("once, not once per filter").isEqualTo(1);
            assertThat(occurrences(output.toString().substring(logged), "Circuit to Redis opened")).isEqualTo(1);

            REDIS.server().restart();
            Await.until("the circuit closed", Duration.ofSeconds(30), () -> {
                directory.find(2);
                return store.circuitState() == CircuitBreaker.State.CLOSED;
            });
            Await.until("filter re-warmed after an empty restart, and the guard blocks again", Duration.ofSeconds(30),
                    () -> rejects(directory, absent.get(1)));

            String log = output.toString().substring(logged);
            double opened = transitions(meters, "closed", "open");
            double closed = transitions(meters, "half-open", "closed") + transitions(meters, "open", "closed");
            assertThat(opened).isGreaterThanOrEqualTo(1);
            assertThat(closed).as("closed once for each time it opened").isEqualTo(opened);
            assertThat(transitions(meters, "open", "half-open")).as("each probe counted once")
                    .isEqualTo(transitions(meters, "half-open", "open") + transitions(meters, "half-open", "closed"));
            assertThat(occurrences(log, "Circuit to Redis opened")).as("logged once per opening").isEqualTo((int) opened);
            assertThat(occurrences(log, "Circuit to Redis closed")).as("logged once per closing").isEqualTo((int) closed);
            assertThat(directory.find(2)).as("a present key is found").isEqualTo(2);
            assertThat(LongStream.rangeClosed(1, 50).map(i -> i * 2).filter(id -> rejects(directory, id)).count())
                    .as("present keys rejected").isZero();
        }
    }

    private static double transitions(MeterRegistry meters, String from, String to) {
        return meters.get("bloomguard.circuit.transitions").tag("from", from).tag("to", to).counter().count();
    }

    private static int occurrences(String text, String line) {
        return text.split(Pattern.quote(line), -1).length - 1;
    }

    @Test
    void pausedRedisCostsAtMostTheTimeoutAndBypasses() throws Exception {
        try (ConfigurableApplicationContext context = start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            long absent = absentKeys(filter, 1).get(0);
            admin.sync().clientPause(1_500);
            double before = bypassed(context);
            long[] paused = timeCalls(directory, 2, absent);
            assertThat(bypassed(context) - before).isEqualTo(2);
            log.info("Check latency with Redis paused (CLIENT PAUSE), circuit closed: max {} µs", max(paused) / 1000);
            assertThat(max(paused)).isLessThan(REDIS_TIMEOUT.plus(MARGIN).toNanos());
            Await.until("blocking again after the pause", Duration.ofSeconds(10), () -> rejects(directory, absent));
        }
    }

    /**
     * A lookup that found nothing remembers the miss before it returns; with Redis's writes paused
     * (the check still answers) that write must cost no more than a check does (redis-timeout),
     * not the write timeout.
     */
    @Test
    void aNotFoundLookupWithRedisPausedCostsAtMostTheTimeout() throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), "outage" + (++testNumber), TABLE,
                WARMUP_SQL, "bloom-guard.filters.user.negative-cache.enabled=true");
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            long rowless = absentKeys(filter, 1).get(0);
            filter.add(rowless); // passes the filter, but has no row: a miss to remember
            context.getBean(StringRedisTemplate.class) // as if the add's mark had run out
                    .delete(MissKeys.added(filter.keys(), 0, MissKeys.digest(rowless)));
            // Writes (and scripts) wait in Redis, reads do not: the check answers, the remember waits.
            admin.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(3_000).add("WRITE"));
            RunningTime call = RunningTime.start();
            assertThat(directory.lookup(rowless)).isEmpty();
            long took = withinAllowance(call.stop());
            log.info("A not-found lookup with Redis's writes paused (CLIENT PAUSE WRITE): {} µs", took / 1000);
            assertThat(took).as("the check, and the remember bounded by redis-timeout")
                    .isLessThan(REDIS_TIMEOUT.multipliedBy(2).plus(MARGIN).toNanos());

            Await.until("the miss remembered and rejected after the pause", Duration.ofSeconds(10),
                    () -> rejects(() -> directory.lookup(rowless)));
            long absent = absentKeys(filter, 1).get(0);
            assertThat(rejects(directory, absent)).as("an absent id").isTrue();
        }
    }

    @BootIndependent
    @Test
    void loadingRedisAnswersNoCheckAndFailsNoCaller() throws Exception {
        try (ConfigurableApplicationContext context = start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect();
                StatefulRedisConnection<String, String> reloader = client.connect()) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            long absent = absentKeys(filter, 1).get(0);
            RedisCommands<String, String> sync = admin.sync();
            sync.dispatch(CommandType.DEBUG, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("POPULATE").add(300_000));
            sync.configSet("key-load-delay", "10");
            try {
                sync.configSet("loading-process-events-interval-bytes", "1024");
            }
            catch (RedisCommandExecutionException ex) {
                log.info("This Redis loads with its default event interval: {}", ex.getMessage());
            }
            CompletableFuture<String> reload;
            for (int attempt = 1;; attempt++) {
                reload = reloader.async().debugReload().toCompletableFuture();
                try {
                    Await.until("Redis loading", Duration.ofSeconds(10),
                            () -> sync.info("persistence").contains("loading:1"));
                    break;
                }
                catch (AssertionError missed) {
                    // Redis 6.2 answers while loading only between chunks of the file: a load can run
                    // its course between two polls. The checks must be timed during one: load again.
                    reload.get(60, TimeUnit.SECONDS);
                    if (attempt == 3) {
                        throw missed;
                    }
                }
            }
            double before = bypassed(context);
            long[] loading = timeCalls(directory, 5, absent);
            assertThat(bypassed(context) - before).as("checks while Redis answers LOADING").isEqualTo(5);
            assertThat(max(loading)).isLessThan(REDIS_TIMEOUT.plus(MARGIN).toNanos());
            assertThat(directory.find(4)).isEqualTo(4);
            reload.get(60, TimeUnit.SECONDS);
            sync.configSet("key-load-delay", "0");
            Await.until("blocking again once loaded", Duration.ofSeconds(10), () -> filter.check(absent) == Membership.ABSENT);
            assertThatThrownBy(() -> directory.find(absent)).isInstanceOf(BloomGuardRejectedException.class);
        }
    }

    /**
     * Redis refuses adds (OOM, then READONLY) while it still answers checks. The rows are
     * committed (no transaction surrounds {@code create}), so their adds wait for a retry and this
     * instance blocks nothing of the filter meanwhile; once Redis takes writes, blocking resumes.
     * (A refused add inside a transaction rolls the row back: see {@code FailedAddTests}.)
     */
    @Test
    void readOnlyReplicaAndOutOfMemoryNeverBlockACommittedRowNorFailAChecks() throws Exception {
        try (RedisServer emptyPrimary = RedisServer.start();
                ConfigurableApplicationContext context = start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            long absent = absentKeys(filter, 1).get(0);
            RedisCommands<String, String> sync = admin.sync();

            sync.configSet("maxmemory-policy", "noeviction");
            sync.configSet("maxmemory", "1");
            long refused;
            try {
                refused = directory.create();
                assertThat(directory.find(refused)).as("a committed row whose add Redis refused").isEqualTo(refused);
                assertThat(directory.find(4)).isEqualTo(4);
                assertThat(directory.find(absent)).as("nothing of the filter is blocked while an add waits")
                        .isEqualTo(absent);
            }
            finally {
                sync.configSet("maxmemory", "0");
            }
            Await.until("the refused add landed and blocking resumed", Duration.ofSeconds(10), () -> rejects(directory, absent));
            assertThat(filter.check(refused)).isEqualTo(Membership.PRESENT);

            sync.replicaof("127.0.0.1", emptyPrimary.port());
            Await.until("replica synced with the empty primary", Duration.ofSeconds(20),
                    () -> sync.info("replication").contains("master_link_status:up") && sync.dbsize() == 0);
            assertThat(directory.find(4)).as("a failover to an empty replica blocks nothing").isEqualTo(4);
            assertThat(directory.find(absent)).as("nor absent keys: the filter is gone").isEqualTo(absent);
            long createdOnReplica = directory.create();
            assertThat(directory.find(createdOnReplica)).as("a row whose add the read-only replica refused")
                    .isEqualTo(createdOnReplica);

            sync.replicaofNoOne();
            Await.until("filter re-warmed on the promoted replica", Duration.ofSeconds(30),
                    () -> filter.check(absent) == Membership.ABSENT);
            assertThat(directory.find(createdOnReplica)).as("re-warmed, or added by the retry").isEqualTo(createdOnReplica);
            long created = directory.create();
            assertThat(directory.find(created)).isEqualTo(created);
        }
    }

    /**
     * FLUSHALL while a rebuild's query runs, just after a user was created through
     * {@code @BloomPut}: the query's snapshot predates the user, and the journal that would carry
     * it onto the new bitmap went with the flush. That load must not go live; the next one does.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void flushAllWhileARebuildQueryRunsLosesNoKeyCommittedAfterItsSnapshot(GuardedApp.Source source) throws Exception {
        RealServers.execute("DROP TABLE IF EXISTS outage_pause", "CREATE TABLE outage_pause (seconds FLOAT)",
                "INSERT INTO outage_pause VALUES (0)");
        String slowQuery = "SELECT u.id FROM " + TABLE + " u, (SELECT pg_sleep(p.seconds) FROM outage_pause p) pause";
        try (ConfigurableApplicationContext context = GuardedApp.start(source, REDIS.port(), "outage" + (++testNumber), TABLE,
                slowQuery);
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RealServers.execute("UPDATE outage_pause SET seconds = 2");
            CompletableFuture<?> rebuild = context.getBean(FilterWarmer.class).rebuild("user");
            Await.until("the rebuild's query runs", Duration.ofSeconds(10), RedisOutageTests::pausedQueryRuns);
            long created = directory.create();
            admin.sync().flushall();
            RealServers.execute("UPDATE outage_pause SET seconds = 0");

            rebuild.get(60, TimeUnit.SECONDS);

            assertThat(directory.find(created)).as("created after the snapshot, before the flush").isEqualTo(created);
            assertThat(presentSample()).noneMatch(id -> rejects(directory, id));
            long rejected = LongStream.iterate(1, id -> id + 2).limit(1_000).filter(id -> rejects(directory, id)).count();
            assertThat(rejected).as("absent ids rejected").isGreaterThan(950);
        }
    }

    private static boolean pausedQueryRuns() {
        return new JdbcTemplate(RealServers.postgres().dataSource()).queryForObject(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()"
                        + " AND query LIKE '%FROM outage_pause p) pause%'", Long.class) > 0;
    }

    private ConfigurableApplicationContext start() {
        return start(GuardedApp.Source.SQL);
    }

    /**
     * With {@code bypass.when-exhausted: allow}: these tests hold the promise that a Redis failure
     * fails no caller, for every call of a traffic far above what the filter passed before the
     * failure, which the default bypass budget would shed. What the budget does under such a
     * flood is {@link RedisLostUnderAttackTests}'.
     */
    private ConfigurableApplicationContext start(GuardedApp.Source source) {
        return GuardedApp.start(source, REDIS.port(), "outage" + (++testNumber), TABLE, WARMUP_SQL,
                "bloom-guard.filters.user.bypass.when-exhausted=allow");
    }

    /** Whether the guard rejects {@code id} right now. */
    static boolean rejects(GuardedApp.Directory directory, long id) {
        return rejects(() -> directory.find(id));
    }

    private static boolean rejects(Runnable call) {
        try {
            call.run();
            return false;
        }
        catch (BloomGuardRejectedException ex) {
            return true;
        }
    }

    private static List<Long> presentSample() {
        return LongStream.rangeClosed(1, 2_000).map(i -> i * 50).boxed().toList();
    }

    private static List<Long> absentKeys(RedisBloomFilter filter, int count) {
        return AbsentKeys.first(count, LongStream.iterate(1, id -> id + 2), id -> filter.check(id) == Membership.ABSENT);
    }

    private static double bypassed(ConfigurableApplicationContext context, String reason) {
        return context.getBean(MeterRegistry.class).get("bloomguard.checks").tag("filter", "user")
                .tag("outcome", "bypassed").tag("reason", reason).counter().count();
    }

    private static double bypassed(ConfigurableApplicationContext context) {
        return context.getBean(MeterRegistry.class).get("bloomguard.checks").tag("filter", "user")
                .tag("outcome", "bypassed").counters().stream().mapToDouble(counter -> counter.count()).sum();
    }

    /**
     * Calls {@code find(absentKey)} {@code count} times; each must go through (bypassed), none may
     * throw. The running time of each ({@link RunningTime}: redis-timeout is Redis's time, not the
     * instance's own pauses), each within the pause allowance on the wall clock.
     */
    private static long[] timeCalls(GuardedApp.Directory directory, int count, long absentKey) {
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            RunningTime call = RunningTime.start();
            assertThat(directory.find(absentKey)).isEqualTo(absentKey);
            nanos[i] = withinAllowance(call.stop());
        }
        return nanos;
    }

    /** The call's running time, its wall time checked against redis-timeout plus the pause allowance. */
    private static long withinAllowance(RunningTime call) {
        assertThat(call.wall()).as("wall time of a call (redis-timeout %s, pause allowance %s)", REDIS_TIMEOUT,
                RunningTime.MAX_PAUSE_ALLOWANCE).isLessThan(REDIS_TIMEOUT.plus(RunningTime.MAX_PAUSE_ALLOWANCE).plus(MARGIN).toNanos());
        return call.running();
    }

    private static long max(long[] values) {
        return Arrays.stream(values).max().orElseThrow();
    }

    private static long percentile(long[] values, int percent) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)];
    }
}
