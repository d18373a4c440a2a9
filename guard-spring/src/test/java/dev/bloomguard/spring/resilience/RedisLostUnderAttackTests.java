package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomGuardShedException;
import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import dev.bloomguard.testsupport.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Redis lost in the middle of an attack: several threads send random absent ids to a guarded
 * repository on PostgreSQL while a real user asks for ids that exist, and Redis is stopped. Before
 * the stop the filter blocks the attack and serves the user. After it, with
 * {@code bypass.max-rate} set, the database sees about that many queries per second and no more;
 * every call beyond is shed with {@link BloomGuardShedException} and counted as
 * {@code outcome=shed} with its reason. With {@code when-exhausted: allow} nothing is shed and the
 * calls beyond the budget are counted instead.
 */
class RedisLostUnderAttackTests {

    private static final Logger log = LoggerFactory.getLogger(RedisLostUnderAttackTests.class);

    /** Present ids are the even numbers 2..20,000. */
    private static final String TABLE = "attacked_during_outage";
    private static final int USERS = 10_000;
    private static final double MAX_RATE = 200;
    private static final int ATTACKERS = 4;
    private static final Duration OUTAGE = Duration.ofSeconds(3);

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static int testNumber;

    @BeforeAll
    static void users() {
        GuardedApp.createUsers(TABLE, USERS);
    }

    @BeforeEach
    void redisIsUp() {
        if (!REDIS.server().isRunning()) {
            REDIS.server().restart();
        }
    }

    @Test
    void withABudgetTheDatabaseSeesAboutMaxRateWhileRedisIsDownAndTheRestIsShedAndCounted() throws Exception {
        try (ConfigurableApplicationContext context = start("shed")) {
            GuardedApp.Users users = context.getBean(GuardedApp.Users.class);
            try (Flood flood = new Flood(context.getBean(GuardedApp.Directory.class))) {
                Phase guarded = flood.run(Duration.ofMillis(1_500), users);
                assertThat(guarded.presentRejected).as("present ids refused while the filter answers").isZero();
                assertThat(guarded.shed).as("nothing shed while the filter answers").isZero();
                assertThat(guarded.absentBlocked).as("absent ids blocked while the filter answers")
                        .isGreaterThan(guarded.absentCalls * 95 / 100);

                REDIS.server().stop();
                Phase outage = flood.run(OUTAGE, users);
                log.info("Redis down {} ms under attack, max-rate {}: {} calls, {} database queries ({}/s), {} shed,"
                        + " real user {} served of {}", outage.millis, MAX_RATE, outage.calls(), outage.queries,
                        outage.queries * 1000 / outage.millis, outage.shed, outage.presentServed, outage.presentCalls);

                double seconds = outage.millis / 1000.0;
                assertThat((double) outage.queries).as("database queries during the outage")
                        .isLessThanOrEqualTo(1.5 * MAX_RATE * seconds + MAX_RATE);
                assertThat(outage.calls()).as("a flood: without the budget every one of these is a query")
                        .isGreaterThan(5 * outage.queries);
                assertThat(outage.shed).isGreaterThan(outage.calls() / 2);
                assertThat(outage.presentRejected).as("a present id is never blocked, only shed").isZero();
                assertThat(flood.unexpected).as("exceptions other than rejections and sheds").isEmpty();
                assertThat(flood.shedReasons).as("why the filter could not answer")
                        .isSubsetOf("redis-error", "circuit-open").contains("circuit-open");

                flood.close();
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(checks(meters, "shed", "circuit-open") + checks(meters, "shed", "redis-error"))
                        .as("every shed call counted, outcome=shed with its reason").isEqualTo((double) flood.allShed());
                assertThat(checks(meters, "shed", "not-ready") + checks(meters, "shed", "suspended")).isZero();
                assertThat(overBudget(meters)).isZero();
            }
        }
    }

    @Test
    void withWhenExhaustedAllowNothingIsShedAndTheCallsBeyondTheBudgetAreCounted() throws Exception {
        try (ConfigurableApplicationContext context = start("allow",
                "bloom-guard.filters.user.bypass.when-exhausted=allow")) {
            GuardedApp.Users users = context.getBean(GuardedApp.Users.class);
            try (Flood flood = new Flood(context.getBean(GuardedApp.Directory.class))) {
                Phase guarded = flood.run(Duration.ofMillis(1_000), users);
                assertThat(guarded.presentRejected).isZero();
                assertThat(guarded.absentBlocked).isGreaterThan(guarded.absentCalls * 95 / 100);

                REDIS.server().stop();
                Phase outage = flood.run(OUTAGE, users);
                log.info("Redis down {} ms under attack, when-exhausted allow: {} calls, {} database queries ({}/s)",
                        outage.millis, outage.calls(), outage.queries, outage.queries * 1000 / outage.millis);

                flood.close();
                assertThat(flood.allShed()).as("nothing shed").isZero();
                assertThat(flood.unexpected).isEmpty();
                assertThat(outage.presentRejected).isZero();
                assertThat(outage.presentServed).isEqualTo(outage.presentCalls);
                double seconds = outage.millis / 1000.0;
                assertThat((double) outage.queries).as("the flood goes through, beyond the budget")
                        .isGreaterThan(1.5 * MAX_RATE * seconds + MAX_RATE);
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(overBudget(meters)).as("calls beyond the budget, visible")
                        .isGreaterThan(outage.queries - (1.5 * MAX_RATE * seconds + MAX_RATE));
                assertThat(checks(meters, "shed", "circuit-open") + checks(meters, "shed", "redis-error")).isZero();
            }
        }
    }

    private static ConfigurableApplicationContext start(String name, String... extra) {
        List<String> properties = new ArrayList<>(List.of("bloom-guard.filters.user.bypass.max-rate=" + MAX_RATE));
        properties.addAll(List.of(extra));
        return GuardedApp.start(REDIS.port(), "lost-" + name + (++testNumber), TABLE, "SELECT id FROM " + TABLE,
                properties.toArray(String[]::new));
    }

    private static double checks(MeterRegistry meters, String outcome, String reason) {
        return meters.get(BloomGuardMetricNames.CHECKS).tag("filter", "user").tag("outcome", outcome)
                .tag("reason", reason).counter().count();
    }

    private static double overBudget(MeterRegistry meters) {
        return meters.get(BloomGuardMetricNames.BYPASS_OVER_BUDGET).tag("filter", "user").counter().count();
    }

    /** What one phase of the flood did. */
    private static final class Phase {

        long millis;
        long queries;
        long absentCalls;
        long absentBlocked;
        long presentCalls;
        long presentServed;
        long presentRejected;
        long shed;

        long calls() {
            return absentCalls + presentCalls;
        }
    }

    /**
     * {@value #ATTACKERS} threads sending random odd (never inserted) ids as fast as the guard
     * answers, and a real user asking for even ids that exist every 20 ms; counted per phase.
     */
    private static final class Flood implements AutoCloseable {

        private final GuardedApp.Directory directory;
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong absentCalls = new AtomicLong();
        private final AtomicLong absentBlocked = new AtomicLong();
        private final AtomicLong presentCalls = new AtomicLong();
        private final AtomicLong presentServed = new AtomicLong();
        /** Held while the real user's two counts change, and while a phase reads them. */
        private final Object presentCounts = new Object();
        private final AtomicLong presentRejected = new AtomicLong();
        private final AtomicLong shed = new AtomicLong();
        final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        final Queue<String> shedReasons = new ConcurrentLinkedQueue<>();

        Flood(GuardedApp.Directory directory) {
            this.directory = directory;
            for (int i = 0; i < ATTACKERS; i++) {
                threads.add(new Thread(this::attack, "attacker-" + i));
            }
            threads.add(new Thread(this::realUser, "real-user"));
            threads.forEach(thread -> {
                thread.setDaemon(true);
                thread.start();
            });
        }

        private void attack() {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (running.get()) {
                long id = 2 * random.nextLong(1, 500_000_000) + 1;
                absentCalls.incrementAndGet();
                call(id, false);
            }
        }

        private void realUser() {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (running.get()) {
                long id = 2L * random.nextInt(1, USERS + 1);
                boolean served = call(id, true);
                synchronized (presentCounts) { // a call and its answer are counted in the same phase
                    presentCalls.incrementAndGet();
                    if (served) {
                        presentServed.incrementAndGet();
                    }
                }
                LockSupport.parkNanos(20_000_000);
            }
        }

        /** Whether the call was served with its row. */
        private boolean call(long id, boolean present) {
            try {
                return directory.lookup(id).isPresent();
            }
            catch (BloomGuardRejectedException ex) {
                (present ? presentRejected : absentBlocked).incrementAndGet();
            }
            catch (BloomGuardShedException ex) {
                shed.incrementAndGet();
                if (!shedReasons.contains(ex.getReason())) {
                    shedReasons.add(ex.getReason());
                }
            }
            catch (Throwable ex) {
                unexpected.add(ex);
            }
            return false;
        }

        /** Lets the flood run for {@code duration} and counts what happened meanwhile. */
        Phase run(Duration duration, GuardedApp.Users users) {
            long[] before;
            synchronized (presentCounts) {
                before = new long[] { absentCalls.get(), absentBlocked.get(), presentCalls.get(), presentServed.get(),
                        presentRejected.get(), shed.get(), users.calls() };
            }
            long started = System.nanoTime();
            LockSupport.parkNanos(duration.toNanos());
            Phase phase = new Phase();
            phase.queries = users.calls() - before[6];
            phase.millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
            phase.absentCalls = absentCalls.get() - before[0];
            phase.absentBlocked = absentBlocked.get() - before[1];
            synchronized (presentCounts) {
                phase.presentCalls = presentCalls.get() - before[2];
                phase.presentServed = presentServed.get() - before[3];
            }
            phase.presentRejected = presentRejected.get() - before[4];
            phase.shed = shed.get() - before[5];
            return phase;
        }

        long allShed() {
            return shed.get();
        }

        /** Stops the threads and waits for their calls in flight, so that the counts add up. */
        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(5_000);
            }
        }
    }
}
