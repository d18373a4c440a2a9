package dev.bloomguard.core.load;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * One rebuild on demand per cooldown for the whole fleet ({@code <prefix>:v1:{<filter>}:rebuild-turn},
 * {@code SET NX PX}): a rebuild reads the whole warmup table, and a client repeating its request
 * through a load balancer reaches every instance in turn. Only a rebuild asked for by an operator
 * or a client takes a turn; warmups, scheduled rebuilds and catch-ups do not.
 *
 * <p>The one thing easy to get wrong: the cooldown runs from the rebuild's end, not its start, so
 * that a rebuild slower than the cooldown is not followed at once by the next. {@link #ended}
 * arms it again then. While the rebuild runs past the first expiry, its load lock is what another
 * instance sees ({@code lockHolder}); the caller checks that before taking a turn.
 */
public final class RebuildTurn {

    private final BitmapStore store;
    private final String key;
    private final String holder;
    private final Duration cooldown;

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
     * The rebuild ended, however it ended: no other starts for the cooldown from now.
     *
     * @throws dev.bloomguard.core.redis.BitmapStoreException when Redis fails
     */
    public void ended() {
        if (!store.expireIfEquals(key, holder, cooldown)) {
            store.setIfAbsent(key, holder, cooldown);
        }
    }

    /**
     * The rebuild did not start after all: another may at once.
     *
     * @throws dev.bloomguard.core.redis.BitmapStoreException when Redis fails
     */
    public void giveBack() {
        store.deleteIfEquals(key, holder);
    }

    /** How long the cooldown lasts: the longest another instance waits for its turn. */
    public Duration cooldown() {
        return cooldown;
    }
}
