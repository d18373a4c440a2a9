package dev.bloomguard.demo;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardRejectedException;

/**
 * Makes the lookups of an attack from inside the demo, at a steady rate on one background
 * thread, so the dashboard can show what they cost the database with the guard and without it.
 * One burst runs at a time; each is bounded by {@link AttackPlan}'s caps.
 *
 * <p>With the guard on, a lookup is {@code UserRepository.findById}, the filter's path. With it
 * off, the same row is read with plain SQL through the same {@code DataSource}: that is the
 * application without bloom-guard, not the filter switched off (the filter is shared by every
 * caller and stays on). Either way {@link DatabaseStatements} counts what reached the database.
 */
@Component
class AttackSimulator implements DisposableBean {

    /**
     * Absent ids are drawn from here up. No demo user has an id this large: the seeded ids are
     * 1..{@code demo.users} and new users follow them.
     */
    static final long ABSENT_IDS_FROM = 1_000_000_000_000L;

    private static final long ABSENT_IDS_SPAN = 1_000_000_000_000L;

    private static final String FIND_BY_ID = "SELECT id, name, email FROM users WHERE id = ?";

    private static final Logger log = LoggerFactory.getLogger(AttackSimulator.class);

    /** A burst as the page shows it; {@code databaseQueries} counts while it runs. */
    record Burst(String mix, String guard, int rate, int seconds, Instant startedAt, Instant endedAt, String state,
            long lookups, long found, long rejected, long notFound, long failed, long databaseQueries,
            Long falsePositiveId) {
    }

    /**
     * @param current the burst running now, or the last one
     * @param withGuard the last burst through the filter (it may be {@code current})
     * @param withoutGuard the last burst straight to the database
     */
    record Status(Burst current, Burst withGuard, Burst withoutGuard, int maxRate, int maxSeconds) {
    }

    private final UserRepository users;
    private final JdbcTemplate jdbc;
    private final DatabaseStatements database;
    private final FalsePositiveProbe falsePositives;

    private final Object lock = new Object();
    private Run current;
    private Run withGuard;
    private Run withoutGuard;

    /** @param filters see {@link FalsePositiveProbe} */
    AttackSimulator(UserRepository users, JdbcTemplate jdbc, DatabaseStatements database,
            ObjectProvider<BloomFilterRegistry> filters) {
        this.users = users;
        this.jdbc = jdbc;
        this.database = database;
        this.falsePositives = new FalsePositiveProbe(filters, jdbc);
    }

    /**
     * Starts a burst in the background and returns at once.
     *
     * @throws IllegalStateException when a burst is running, or no false positive can be found
     *     for {@link AttackPlan.Mix#FALSE_POSITIVE}
     */
    Burst start(AttackPlan plan) {
        synchronized (lock) {
            if (current != null && current.isRunning()) {
                throw new IllegalStateException("An attack is already running; stop it first");
            }
            Long falsePositiveId = plan.mix() == AttackPlan.Mix.FALSE_POSITIVE ? falsePositives.find() : null;
            LongSupplier ids = ids(plan.mix(), falsePositiveId);
            Run run = new Run(plan, ids, falsePositiveId, database.count());
            current = run;
            if (plan.guarded()) {
                withGuard = run;
            }
            else {
                withoutGuard = run;
            }
            Thread thread = new Thread(() -> attack(run), "attack-simulator");
            thread.setDaemon(true);
            run.thread = thread;
            thread.start();
            return burst(run);
        }
    }

    /** Stops the running burst, if any; it ends within one lookup. */
    Status stop() {
        synchronized (lock) {
            if (current != null) {
                current.stopRequested = true;
            }
        }
        return status();
    }

    Status status() {
        synchronized (lock) {
            return new Status(burst(current), burst(withGuard), burst(withoutGuard), AttackPlan.MAX_RATE,
                    AttackPlan.MAX_SECONDS);
        }
    }

    @Override
    public void destroy() throws InterruptedException {
        Run run;
        synchronized (lock) {
            run = current;
        }
        if (run != null) {
            run.stopRequested = true;
            run.thread.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    private Burst burst(Run run) {
        return run == null ? null : run.burst(database.count());
    }

    /**
     * Paces the lookups: by any moment the burst has made {@code rate} per elapsed second, and it
     * ends when all are made or its time is up, whichever is first, so a slow database makes it
     * fall short rather than run over.
     */
    private void attack(Run run) {
        AttackPlan plan = run.plan;
        long total = (long) plan.rate() * plan.seconds();
        long length = TimeUnit.SECONDS.toNanos(plan.seconds());
        long started = System.nanoTime();
        long made = 0;
        String end = "finished";
        try {
            long elapsed;
            while (!run.stopRequested && made < total && (elapsed = System.nanoTime() - started) < length) {
                long due = Math.min(total, elapsed * plan.rate() / TimeUnit.SECONDS.toNanos(1) + 1);
                if (made < due) {
                    lookup(run);
                    made++;
                }
                else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
            if (run.stopRequested) {
                end = "stopped";
            }
        }
        catch (RuntimeException ex) {
            end = "failed";
            log.warn("Attack simulator stopped by {}", ex.toString());
        }
        finally {
            run.end(end, database.count());
        }
    }

    private void lookup(Run run) {
        long id = run.ids.getAsLong();
        try {
            boolean found;
            if (run.plan.guarded()) {
                found = users.findById(id).isPresent();
            }
            else {
                found = !jdbc.query(FIND_BY_ID,
                        (row, number) -> new User(row.getLong(1), row.getString(2), row.getString(3)), id).isEmpty();
            }
            (found ? run.found : run.notFound).incrementAndGet();
        }
        catch (BloomGuardRejectedException ex) {
            run.rejected.incrementAndGet();
        }
        catch (RuntimeException ex) {
            if (run.failed.getAndIncrement() == 0) {
                log.warn("Attack simulator: a lookup failed ({}); counting failures and going on", ex.toString());
            }
        }
        run.lookups.incrementAndGet();
    }

    private LongSupplier ids(AttackPlan.Mix mix, Long falsePositiveId) {
        LongSupplier absent = () -> ABSENT_IDS_FROM + ThreadLocalRandom.current().nextLong(ABSENT_IDS_SPAN);
        switch (mix) {
            case ABSENT:
                return absent;
            case FALSE_POSITIVE:
                return () -> falsePositiveId;
            case MIXED:
                List<Long> range = jdbc.query("SELECT MIN(id), MAX(id) FROM users",
                        (row, number) -> List.of(row.getLong(1), row.getLong(2))).get(0);
                long lowest = range.get(0);
                long highest = range.get(1);
                if (highest < 1) {
                    return absent;
                }
                return () -> ThreadLocalRandom.current().nextBoolean() ? absent.getAsLong()
                        : ThreadLocalRandom.current().nextLong(lowest, highest + 1);
            default:
                throw new IllegalArgumentException("Unknown mix " + mix);
        }
    }

    /** One burst's progress, written by its thread and read by the page's polls. */
    private static final class Run {

        final AttackPlan plan;
        final LongSupplier ids;
        final Long falsePositiveId;
        final long statementsBefore;
        final Instant startedAt = Instant.now();
        final AtomicLong lookups = new AtomicLong();
        final AtomicLong found = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong notFound = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        volatile boolean stopRequested;
        volatile Thread thread;
        private volatile Instant endedAt;
        private volatile String state = "running";
        private volatile long statementsAfter = -1;

        Run(AttackPlan plan, LongSupplier ids, Long falsePositiveId, long statementsBefore) {
            this.plan = plan;
            this.ids = ids;
            this.falsePositiveId = falsePositiveId;
            this.statementsBefore = statementsBefore;
        }

        boolean isRunning() {
            return endedAt == null;
        }

        void end(String state, long statements) {
            this.statementsAfter = statements;
            this.state = state;
            this.endedAt = Instant.now();
        }

        Burst burst(long statementsNow) {
            long after = statementsAfter >= 0 ? statementsAfter : statementsNow;
            return new Burst(plan.mix().tag(), plan.guarded() ? "on" : "off", plan.rate(), plan.seconds(), startedAt,
                    endedAt, state, lookups.get(), found.get(), rejected.get(), notFound.get(), failed.get(),
                    after - statementsBefore, falsePositiveId);
        }
    }
}
