package dev.bloomguard.core.load;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * One rebuild on demand per cooldown for the whole fleet ({@code <prefix>:v1:{<filter>}:rebuild-turn},
 * {@code SET NX PX}): a rebuild reads the whole warmup table, and a client repeating its request
 * through a load balancer reaches every instance in turn. Only a rebuild asked for by an operator
 * or a client takes a turn; warmups, scheduled rebuilds and catch-ups do not.
 *
 * <p>The one thing easy to get wrong: the turn is held from the request until a cooldown after
 * the rebuild's end, however long the rebuild runs. {@link #keepWhileRunning} renews it every
 * third of the cooldown, so it never lapses under a rebuild slower than the cooldown, nor in the
 * moment between the rebuild's load lock being released and {@link #ended} arming it again; a
 * lapse there would let another instance start the next rebuild at once.
 */
public final class RebuildTurn {

    private final BitmapStore store;
    private final String key;
    private final String holder;
    private final Duration cooldown;
    private volatile ScheduledFuture<?> renewal;

    private RebuildTurn(BitmapStore store, String key, String holder, Duration cooldown) {
        this.store = store;
        this.key = key;
        this.holder = holder;
        this.cooldown = cooldown;
    }

    /**
     * Takes the fleet's turn to rebuild the filter, unless a rebuild took it within the cooldown.
     *
     * @throws dev.bloomguard.core.redis.BitmapStoreException when Redis fails: no turn
     */
    static Optional<RebuildTurn> tryTake(FilterContext filter, String keyPrefix, Duration cooldown) {
        if (cooldown == null || cooldown.isNegative() || cooldown.isZero()) {
            throw new IllegalArgumentException("rebuild cooldown (" + cooldown + ") must be positive");
        }
        String key = FilterKeys.filterWide(keyPrefix, filter.name(), "rebuild-turn");
        String holder = filter.instanceId() + ":" + UUID.randomUUID();
        if (!filter.store().setIfAbsent(key, holder, cooldown)) {
            return Optional.empty();
        }
        return Optional.of(new RebuildTurn(filter.store(), key, holder, cooldown));
    }

    /**
     * Renews the turn on {@code renewals} every third of the cooldown until {@link #ended} or
     * {@link #giveBack}. A renewal that Redis fails is tried again at the next; a turn lost
     * meanwhile lets one more rebuild start, which reads the table and blocks nothing.
     */
    public void keepWhileRunning(ScheduledExecutorService renewals) {
        long period = Math.max(1, cooldown.toMillis() / 3);
        renewal = renewals.scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS);
    }

    private void renew() {
        try {
            rearm();
        }
        catch (RuntimeException ex) {
            // Tried again at the next renewal.
        }
    }

    /**
     * The rebuild ended, however it ended: no other starts for the cooldown from now.
     *
     * @throws dev.bloomguard.core.redis.BitmapStoreException when Redis fails
     */
    public void ended() {
        stopRenewing();
        rearm();
    }

    /**
     * The rebuild did not start after all: another may at once.
     *
     * @throws dev.bloomguard.core.redis.BitmapStoreException when Redis fails
     */
    public void giveBack() {
        stopRenewing();
        store.deleteIfEquals(key, holder);
    }

    /** A full cooldown from now, whether the turn is still held or lapsed (taken again unless another has it). */
    private void rearm() {
        if (!store.expireIfEquals(key, holder, cooldown)) {
            store.setIfAbsent(key, holder, cooldown);
        }
    }

    private void stopRenewing() {
        ScheduledFuture<?> running = renewal;
        if (running != null) {
            running.cancel(false);
        }
    }

    /** How long the cooldown lasts: the longest another instance waits for its turn. */
    public Duration cooldown() {
        return cooldown;
    }
}
