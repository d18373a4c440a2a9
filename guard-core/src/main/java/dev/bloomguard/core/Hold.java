package dev.bloomguard.core;

/**
 * A reason for a filter not to block: while one is held on a filter, or was at any moment between
 * a check being sent and its reply being read, a clear bit answers {@link Membership#NOT_READY}
 * and the key goes through. Held on one instance, in memory; no Redis involved.
 *
 * <p>The reasons a filter has no answer at all (not loaded, a rollout whose new generation covers
 * no writer yet, Redis unreachable) need no hold: there is no clear bit to read. See
 * {@code docs/architecture.md}, "Why a key is never blocked".
 */
public enum Hold {

    /**
     * The live bitmap comes from another warmup query than this instance's (a rolling change of
     * the query), or that is not confirmed yet: it may lack rows only this instance's query returns.
     */
    FOREIGN_SOURCE,

    /**
     * Adds this instance made were refused by Redis (out of memory, a read-only replica) and are
     * still being retried, or a re-warm of the whole filter stands in for them.
     */
    PENDING_ADDS,

    /**
     * This instance saw Redis go back in time (a restart from an older snapshot, a failover to a
     * replica that lagged) and has not yet made the filter not ready everywhere.
     */
    REWOUND
}
