package dev.bloomguard.spring.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.CircuitBreaker.State;

/**
 * One log line per transition of the circuit in front of Redis: WARN when it opens, INFO when it
 * closes again; a probe, and a probe that fails, at DEBUG (while Redis stays down they come every
 * {@code bloom-guard.circuit-breaker.open-duration}). It hears the store, once, not each filter,
 * which all tell the same transition. Logs as {@link BloomGuardAutoConfiguration}, which operators
 * configure.
 */
final class CircuitTransitionLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardAutoConfiguration.class);

    private final CircuitBreaker.Subscription subscription;

    CircuitTransitionLog(BitmapStore store) {
        this.subscription = store.onCircuitTransition(CircuitTransitionLog::log);
    }

    static void log(State from, State to) {
        if (to == State.CLOSED) {
            log.info("Circuit to Redis closed ({} -> {}): Redis answers again; checks ask the filters again",
                    from, to);
        }
        else if (from == State.CLOSED) {
            log.warn("Circuit to Redis opened ({} -> {}) after failed or slow calls: checks no longer wait for Redis"
                    + " and are answered by bloom-guard.on-redis-failure until a probe succeeds", from, to);
        }
        else {
            log.debug("Circuit to Redis {} -> {}", from, to);
        }
    }

    @Override
    public void close() {
        subscription.close();
    }
}
