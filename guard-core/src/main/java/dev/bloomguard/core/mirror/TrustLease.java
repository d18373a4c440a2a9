package dev.bloomguard.core.mirror;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.events.AddCount;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * What lets a mirror trust its clear bits ({@code trust-absent}): that it hears of every add,
 * from every instance, within a moment. Three things must hold, and {@link #trusts} checks them:
 * <ul>
 * <li><b>Writers announce.</b> An instance without a mirror publishes its adds only while the
 * filter's {@code :meta} field {@code trustingUntil} lies ahead (else, on a Redis Cluster, every
 * add would cross the bus to every node for nobody). This lease keeps it {@link #TTL} ahead,
 * renewed every {@link #RENEW_EVERY}, and trusts only until a margin before its own renewal
 * runs out. When it finds the field behind what it wrote (Redis lost {@code :meta}: a flush, a
 * restart from an older snapshot) or lapsed, writers may have added unannounced: the mirror is
 * emptied ({@code distrust}) before it trusts again, and so it is at the first renewal.
 * <li><b>The subscription is up.</b> {@link FilterEvents#hearing}: confirmed by Redis and not
 * reported lost since.
 * <li><b>Messages arrive.</b> A connection a firewall dropped without a word looks up to the
 * client. Each renewal publishes a ping after the field, and this instance must have heard one
 * sent within {@link #HEARD_WITHIN}: everything Redis published before it has arrived, so an add
 * it has not heard of is one of the last few seconds at most.
 * <li><b>Every add's message arrived.</b> A message can be lost before it reaches Redis (the
 * writer's ACL refuses the channel, its circuit is open, the command is cancelled), and no ping
 * shows that. Each renewal reads every shard's add counts ({@link AddsHeard}): an add Redis
 * counted at the previous renewal whose message has not arrived since empties the mirror.
 * </ul>
 */
public final class TrustLease implements AutoCloseable {

    static final Duration TTL = Duration.ofSeconds(30);
    static final Duration RENEW_EVERY = Duration.ofSeconds(1);
    static final Duration HEARD_WITHIN = Duration.ofSeconds(3);
    /** Trust ends this long before the lease in Redis would, for the renewal's own latency and clock drift. */
    private static final Duration MARGIN = Duration.ofSeconds(10);
    private static final int PINGS_REMEMBERED = 16;

    private static final Logger log = LoggerFactory.getLogger(TrustLease.class);

    private static final ScheduledExecutorService RENEWALS = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "bloomguard-trust");
        thread.setDaemon(true);
        return thread;
    });

    private final String name;
    private final String metaKey;
    private final FilterEvents events;
    private final Runnable distrust;
    private final AddsHeard addsHeard;
    private final IntFunction<Map<String, String>> addCounts;
    private final int shards;
    private final long sender = ThreadLocalRandom.current().nextLong();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLongArray sentAt = new AtomicLongArray(PINGS_REMEMBERED);
    /** {@link System#nanoTime} until which the lease holds; before the first renewal, now. */
    private volatile long validUntil = System.nanoTime();
    /** When the newest ping heard back was sent; 0 before any. */
    private volatile long heardSentAt;
    /** {@code trustingUntil} as this lease last left it, in Redis ms; 0 before any. */
    private long written;
    private volatile ScheduledFuture<?> renewing;

    /**
     * @param metaKey the filter's {@code :meta} hash
     * @param instanceId this instance's id, the field of its own add counts
     * @param addCounts reads a shard's add counts from Redis ({@code FilterKeys#addCount}: instance id to count)
     * @param distrust empties the mirror: what it read before may lack unannounced adds
     */
    public TrustLease(String name, String metaKey, FilterEvents events, String instanceId, int shards,
            IntFunction<Map<String, String>> addCounts, Runnable distrust) {
        this.name = name;
        this.metaKey = metaKey;
        this.events = events;
        this.addsHeard = new AddsHeard(instanceId, shards);
        this.addCounts = addCounts;
        this.shards = shards;
        this.distrust = distrust;
    }

    /** Another instance's add arrived, its bits already applied to the mirror. */
    public void heardAdd(int shard, AddCount counted) {
        addsHeard.heard(shard, counted);
    }

    public void start() {
        renewing = RENEWALS.scheduleWithFixedDelay(this::renew, 0, RENEW_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether a clear bit of a page read since the last {@code distrust} may block a key now. */
    public boolean trusts() {
        long now = System.nanoTime();
        long heard = heardSentAt;
        return heard != 0 && now - heard < HEARD_WITHIN.toNanos() && now - validUntil < 0 && events.hearing();
    }

    /** A ping arrived: this instance's own, when {@code from} is its sender. */
    public void heard(long from, long pingSequence) {
        if (from != sender || sequence.get() - pingSequence >= PINGS_REMEMBERED || pingSequence > sequence.get()) {
            return;
        }
        long sent = sentAt.get((int) (pingSequence % PINGS_REMEMBERED));
        if (sent - heardSentAt > 0 || heardSentAt == 0) {
            heardSentAt = sent;
        }
    }

    private void renew() {
        long next = sequence.get() + 1;
        long started = System.nanoTime();
        sentAt.set((int) (next % PINGS_REMEMBERED), started);
        sequence.set(next);
        long[] lease;
        try {
            lease = events.renewTrust(metaKey, sender, next, TTL);
        }
        catch (BitmapStoreException | IllegalStateException ex) {
            log.debug("Filter '{}': the mirror's trust lease was not renewed: {}", name, ex.getMessage());
            return;
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': the mirror's trust lease was not renewed", name, ex);
            return;
        }
        List<Map<String, String>> counts = new ArrayList<>(shards);
        try {
            for (int shard = 0; shard < shards; shard++) {
                counts.add(addCounts.apply(shard));
            }
        }
        catch (RuntimeException ex) {
            // Nothing to hold the messages against: this renewal does not extend the trust.
            log.debug("Filter '{}': the mirror's trust lease could not read the add counts: {}", name, ex.getMessage());
            return;
        }
        long before = lease[0];
        long after = lease[1];
        long redisNow = lease[2];
        if (after == 0) {
            // Not loaded, or no longer (FLUSHALL, a restart with nothing): writers stop announcing,
            // so what the mirror holds may miss every add from now on. Trust ends at once.
            validUntil = started;
            if (written != 0) {
                written = 0;
                distrust.run();
                log.info("Filter '{}': its :meta is gone from Redis; the mirror blocks nothing from memory until"
                        + " the filter is loaded again", name);
            }
            return;
        }
        String unheard = null;
        for (int shard = 0; shard < shards; shard++) {
            String found = addsHeard.unheard(shard, counts.get(shard));
            unheard = unheard == null ? found : unheard;
        }
        if (written == 0 || before < written || before <= redisNow || unheard != null) {
            // Writers without a mirror may have added without announcing: this lease is new, Redis
            // lost the field, or it ran out; or an add's message never arrived. What the mirror
            // read before now may lack those adds; the counts read above are in what it reads next.
            for (int shard = 0; shard < shards; shard++) {
                addsHeard.rebase(shard, counts.get(shard));
            }
            distrust.run();
            if (unheard != null && written != 0) {
                log.warn("Filter '{}': the mirror never heard of an add Redis counted ({}); its pages are read again",
                        name, unheard);
            }
            else if (written != 0) {
                log.info("Filter '{}': the mirror's trust lease was {} in Redis; its pages are read again", name,
                        before <= redisNow ? "out of date" : "lost");
            }
        }
        written = after;
        validUntil = started + TTL.minus(MARGIN).toNanos();
    }

    @Override
    public void close() {
        ScheduledFuture<?> task = renewing;
        if (task != null) {
            task.cancel(false);
        }
        validUntil = System.nanoTime();
    }
}
