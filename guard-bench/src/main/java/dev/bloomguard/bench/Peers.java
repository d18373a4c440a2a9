package dev.bloomguard.bench;

import java.util.List;

/**
 * The approaches the check scenarios compare, by name rather than by their place in a list.
 *
 * @param ping the baseline: one {@code PING} on the same connection
 * @param bloomGuard ours
 * @param redisson Redisson's {@code RBloomFilter}
 * @param pipelinedGetbit k {@code GETBIT}s pipelined
 * @param luaGetbit the k bits read by one Lua script
 * @param guava Guava's in-memory filter
 */
record Peers(CheckApproach ping, CheckApproach bloomGuard, CheckApproach redisson, CheckApproach pipelinedGetbit,
        CheckApproach luaGetbit, CheckApproach guava) {

    /** Every approach, in the order the check table lists them. */
    List<CheckApproach> all() {
        return List.of(ping, bloomGuard, redisson, pipelinedGetbit, luaGetbit, guava);
    }

    /** Those with a batch form, in the order the batch table lists them. */
    List<CheckApproach> batching() {
        return List.of(bloomGuard, redisson, pipelinedGetbit);
    }
}
