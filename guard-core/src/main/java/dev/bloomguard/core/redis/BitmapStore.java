package dev.bloomguard.core.redis;

/**
 * The few Redis operations a filter needs, by role: {@link CheckStore} (a check's read),
 * {@link AddStore} (an add's writes), {@link LoadStore} (loads and the adds journal),
 * {@link EventStore} (pub/sub between instances), {@link RegistryStore} (rolling changes),
 * {@link MissStore} (remembered misses) and {@link KeyStore} (primitives). Every method is one
 * round trip unless it says otherwise; a missing key reads as all zeros, as Redis itself does.
 * Every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface BitmapStore extends CheckStore, AddStore, LoadStore, EventStore, RegistryStore, MissStore, KeyStore {

    /** The store's circuit breaker, for operators. */
    CircuitBreaker.State circuitState();

    /**
     * Tells {@code listener} of each transition of the store's circuit breaker, once per
     * transition however many filters share the store (see {@link CircuitBreaker#onTransition});
     * closing the result stops it. A store without a breaker never calls it; a store that wraps
     * another must forward this too, or the starter's transition counter and log stay silent.
     */
    default CircuitBreaker.Subscription onCircuitTransition(CircuitBreaker.TransitionListener listener) {
        return () -> {
        };
    }
}
