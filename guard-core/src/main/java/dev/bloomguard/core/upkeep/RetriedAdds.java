package dev.bloomguard.core.upkeep;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.Hold;
import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * Adds that Redis refused after their rows may already have committed. Each is retried in the
 * background until it lands, and while any add of a filter is waiting, the filter holds
 * {@link Hold#PENDING_ADDS} on this instance, so it does not block: an "absent" answer might be
 * the key whose add is still on its way.
 *
 * <p>The Spring starter hands every add it cannot roll back to one of these. Without Spring, a
 * caller that catches a refused add whose row has committed hands it over the same way and gets
 * the same hold and retries (the README's "Without Spring" example). The re-warm that stands in
 * for adds that cannot be kept is the caller's, as the source of the keys is.
 *
 * <p>The one thing easy to get wrong: a refused add must never simply be reported and
 * forgotten. If it cannot be kept (more than {@code capacity} keys waiting for one filter) or
 * keeps failing for {@code giveUpAfter}, the waiting keys are dropped only in favour of a re-warm
 * of the whole filter from its source, and the filter stays unblocking here until that load is done.
 *
 * <p>Size (over 300 lines): its builder and a per-filter queue whose in-flight batch is tracked by
 * identity (issue 34); the queue is the one piece of state every retry, give-up and re-warm
 * reads, so it stays beside them.
 */
public final class RetriedAdds implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RetriedAdds.class);

    /** How long a retry waits: doubling from the first delay, jittered. */
    private final Backoff backoff;
    private final Duration giveUpAfter;
    private final int capacity;
    private final Function<RedisBloomFilter, CompletableFuture<?>> rewarm;
    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService scheduler;

    private RetriedAdds(Builder builder) {
        this.backoff = Backoff.of(builder.firstDelay, builder.maxDelay);
        this.giveUpAfter = builder.giveUpAfter;
        this.capacity = builder.capacity;
        this.rewarm = builder.rewarm;
    }

    /**
     * The retries of refused adds, with their defaults: see {@link Builder}.
     *
     * @param rewarm reloads a filter whose waiting adds could not be kept from its source; the
     *        future completes once the load is live
     */
    public static Builder builder(Function<RedisBloomFilter, CompletableFuture<?>> rewarm) {
        if (rewarm == null) {
            throw new IllegalArgumentException("the re-warm of filters whose refused adds cannot be kept must not be null");
        }
        return new Builder(rewarm);
    }

    /**
     * Keeps {@code keys} of {@code filter}, whose add Redis refused, and retries them until they
     * land; the filter does not block on this instance meanwhile.
     */
    public void retry(RedisBloomFilter filter, List<?> keys) {
        Waiting current = waiting.computeIfAbsent(filter.name(), name -> new Waiting(filter));
        current.offer(keys);
    }

    /** Stops retrying, before the filters are closed; a filter still held stays so on this instance. */
    @Override
    public void close() {
        ScheduledExecutorService current = scheduler;
        if (current != null) {
            current.shutdownNow();
        }
    }

    private ScheduledExecutorService scheduler() {
        ScheduledExecutorService current = scheduler;
        if (current == null) {
            synchronized (this) {
                current = scheduler;
                if (current == null) {
                    current = Executors.newSingleThreadScheduledExecutor(task -> {
                        Thread thread = new Thread(task, "bloomguard-retried-adds");
                        thread.setDaemon(true);
                        return thread;
                    });
                    scheduler = current;
                }
            }
        }
        return current;
    }

    /** The adds of one filter that wait for Redis, and whether a re-warm stands in for them. */
    private final class Waiting {

        private final RedisBloomFilter filter;
        /**
         * The refused adds, one entry per {@link #offer}, guarded by this object. A retry takes
         * off the entries it sent, by identity: the queue may have been emptied for a re-warm and
         * refilled while the retry was in flight, and the new entries are still owed.
         */
        private final List<List<?>> batches = new ArrayList<>();
        /** How many keys {@link #batches} hold; read without the lock by {@link #active}. */
        private volatile int size;
        private volatile boolean scheduled;
        private volatile boolean rewarming;
        /** Whether this holds {@link Hold#PENDING_ADDS} on the filter; guarded by this object. */
        private boolean holding;
        /** Set when adds refused during a re-warm could not be kept: another re-warm follows it. */
        private boolean rewarmAgain;
        private long failingSinceNanos;
        /** Retries of the waiting keys since they last landed or were first kept. */
        private int attempts;

        Waiting(RedisBloomFilter filter) {
            this.filter = filter;
        }

        boolean active() {
            return rewarming || size > 0;
        }

        /**
         * Holds the filter while {@link #active}, lifts it once not: called under this object's lock
         * after each change, so a hold is taken before the keys it covers can be checked and
         * lifted only after they landed (or a re-warm holding them went live).
         */
        private void hold() {
            boolean active = active();
            if (active != holding) {
                holding = active;
                if (active) {
                    filter.hold(Hold.PENDING_ADDS);
                }
                else {
                    filter.release(Hold.PENDING_ADDS);
                }
            }
        }

        synchronized void offer(List<?> added) {
            if (size + added.size() > capacity) {
                if (rewarming) {
                    // The running re-warm may have read its source before these rows committed:
                    // another one, asked for once it is done, reads it after.
                    rewarmAgain = true;
                }
                else {
                    giveUp("more than " + capacity + " adds are waiting");
                }
                return;
            }
            batches.add(new ArrayList<>(added));
            size += added.size();
            hold();
            if (rewarming) {
                // Kept for after the re-warm, whose source may have been read before these rows
                // committed: retried once it is live.
                return;
            }
            if (!scheduled) {
                scheduled = true;
                failingSinceNanos = System.nanoTime();
                attempts = 0;
                schedule();
            }
        }

        private void schedule() {
            attempts++;
            scheduler().schedule(this::attempt, backoff.delay(attempts).toMillis(), TimeUnit.MILLISECONDS);
        }

        private void attempt() {
            List<List<?>> sent;
            synchronized (this) {
                sent = new ArrayList<>(batches);
            }
            List<Object> keys = new ArrayList<>();
            sent.forEach(keys::addAll);
            try {
                filter.addAll(keys);
            }
            catch (RuntimeException ex) {
                synchronized (this) {
                    if (Duration.ofNanos(System.nanoTime() - failingSinceNanos).compareTo(giveUpAfter) > 0) {
                        giveUp("Redis refused them for " + giveUpAfter + " (" + ex.getMessage() + ")");
                        return;
                    }
                    schedule();
                }
                return;
            }
            synchronized (this) {
                Set<List<?>> landed = Collections.newSetFromMap(new IdentityHashMap<>());
                landed.addAll(sent);
                batches.removeIf(landed::contains);
                size = batches.stream().mapToInt(List::size).sum();
                hold();
                log.info("Filter '{}': {} add(s) that Redis had refused have landed", filter.name(), keys.size());
                if (size > 0 && !rewarming) {
                    attempts = 0;
                    schedule();
                }
                else {
                    scheduled = false;
                }
            }
        }

        /** Drops the waiting keys for a reload of the whole filter, which holds every committed row. */
        private void giveUp(String why) {
            // First, so that the filter is held without a gap while the keys are dropped.
            rewarming = true;
            hold();
            batches.clear();
            size = 0;
            scheduled = false;
            log.error("Filter '{}': {}; this instance lets every key of the filter through until a re-warm"
                    + " from its source is live", filter.name(), why);
            CompletableFuture<?> load;
            try {
                // During a rolling change of the filter's configuration the keys are missing from the
                // other generations too: their instances must reload them.
                filter.generations().ifPresent(generations -> generations.invalidateOthers());
                load = rewarm.apply(filter);
            }
            catch (RuntimeException ex) {
                log.error("Filter '{}' cannot be re-warmed ({}); it stays unblocking on this instance until it is"
                        + " loaded again", filter.name(), ex.getMessage());
                return;
            }
            load.whenComplete((report, error) -> {
                if (error == null) {
                    synchronized (this) {
                        rewarming = false;
                        if (rewarmAgain) {
                            rewarmAgain = false;
                            giveUp("more than " + capacity + " adds were refused during its re-warm");
                            return;
                        }
                        hold(); // lifted here, unless adds refused during the re-warm wait (retried below)
                        if (size > 0 && !scheduled) {
                            scheduled = true;
                            failingSinceNanos = System.nanoTime();
                            attempts = 0;
                            schedule();
                        }
                    }
                    log.info("Filter '{}': re-warmed; blocking again", filter.name());
                }
                else {
                    // Still held meanwhile: giveUp keeps rewarming set, without a gap.
                    scheduler().schedule(() -> {
                        synchronized (this) {
                            giveUp("its re-warm failed (" + error.getMessage() + ")");
                        }
                    }, giveUpAfter.toMillis(), TimeUnit.MILLISECONDS);
                }
            });
        }
    }

    /**
     * The settings of {@link RetriedAdds}, each with its default: a refused add is retried after
     * 100 ms, then twice as late each time up to 5 s, so that once Redis takes writes again a
     * committed key reaches the filter within 5 s; after 2 minutes of refusals, or with more than
     * 100,000 keys waiting for one filter, the filter is re-warmed from its source instead.
     */
    public static final class Builder {

        private final Function<RedisBloomFilter, CompletableFuture<?>> rewarm;
        private Duration firstDelay = Duration.ofMillis(100);
        private Duration maxDelay = Duration.ofSeconds(5);
        private Duration giveUpAfter = Duration.ofMinutes(2);
        private int capacity = 100_000;

        private Builder(Function<RedisBloomFilter, CompletableFuture<?>> rewarm) {
            this.rewarm = rewarm;
        }

        /** The wait before the first retry (default 100 ms); each next one doubles, jittered. */
        public Builder firstDelay(Duration firstDelay) {
            this.firstDelay = firstDelay;
            return this;
        }

        /** The longest wait between two retries (default 5 s): once Redis takes writes, a key lands within it. */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
            return this;
        }

        /** How long adds may keep failing before a re-warm stands in for them (default 2 minutes). */
        public Builder giveUpAfter(Duration giveUpAfter) {
            if (giveUpAfter == null || giveUpAfter.isNegative() || giveUpAfter.isZero()) {
                throw new IllegalArgumentException("give-up-after (" + giveUpAfter + ") must be positive");
            }
            this.giveUpAfter = giveUpAfter;
            return this;
        }

        /** How many keys may wait for one filter before a re-warm stands in for them (default 100,000). */
        public Builder capacity(int capacity) {
            if (capacity < 1) {
                throw new IllegalArgumentException("capacity (" + capacity + ") must be at least 1");
            }
            this.capacity = capacity;
            return this;
        }

        /** The retries, with no thread until an add is refused; the delays are checked here. */
        public RetriedAdds build() {
            return new RetriedAdds(this);
        }
    }
}
