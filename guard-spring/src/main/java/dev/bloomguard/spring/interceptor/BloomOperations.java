package dev.bloomguard.spring.interceptor;

import java.util.function.Supplier;

/**
 * What the annotations of one method ask for, resolved and validated once.
 *
 * @param guard the check before the call, or null
 * @param put the add after the call, or null
 * @param returns how the method's result arrives: a value, a {@code CompletionStage}, or a
 *     reactive type to guard without blocking
 */
record BloomOperations(Guard guard, Put put, ReturnKind returns) {

    /**
     * @param emptyResult what a rejected call returns, or null to throw
     * @param singleFlight whether concurrent admitted calls with equal arguments share one call ({@link SingleFlight})
     */
    record Guard(String filter, KeyExpression key, Supplier<Object> emptyResult, String method, boolean singleFlight) {
    }

    /**
     * @param singleFlight whether the filter has {@code single-flight}: the put then ends the
     *     joining of flights that may have missed its row ({@link SingleFlight#writing})
     */
    record Put(String filter, KeyExpression key, String method, boolean singleFlight) {
    }
}
