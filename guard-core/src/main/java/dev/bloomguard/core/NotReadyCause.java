package dev.bloomguard.core;

import dev.bloomguard.core.filter.FilterEvent;

/** Why a filter could not answer "absent" ({@code FilterEvent.NotReady}). */
public enum NotReadyCause {
    /** A shard's ready marker is clear: the live bitmap is missing or half-written in Redis. */
    INCOMPLETE,
    /**
     * The filter is complete, but a reason not to block is held ({@code FilterOperations#hold}):
     * it is not known to be built from the source this instance loads, adds are still being
     * retried, or Redis lost adds that the filter does not show yet.
     */
    SUSPENDED,
    /** Redis went back in time and lost adds (see {@code FilterOperations#verifyNotBehind}). */
    REDIS_REWOUND,
    /** During a rolling change, this instance's own generation is not loaded (or no longer counts). */
    GENERATION_UNLOADED
}
