package dev.bloomguard.spring.interceptor;

import java.util.List;
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
     * @param misses how the call's misses are remembered, or null when the filter does not remember them
     * @param target the filter named {@code filter}, resolved once for every call of the operation
     */
    record Guard(String filter, KeyExpression key, Supplier<Object> emptyResult, String method, boolean singleFlight,
            Misses misses, OperationFilter target) {

        Guard(String filter, KeyExpression key, Supplier<Object> emptyResult, String method, boolean singleFlight,
                Misses misses) {
            this(filter, key, emptyResult, method, singleFlight, misses, new OperationFilter(filter));
        }

        /** Whether the filter remembers misses of this method's keys. */
        boolean remembersMisses() {
            return misses != null;
        }

        /** Whether {@code error}, thrown by the method, means the key was not found. */
        boolean meansNotFound(Throwable error) {
            if (misses == null) {
                return false;
            }
            for (Class<? extends Throwable> type : misses.exceptions()) {
                if (type.isInstance(error)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * What a guarded method's miss is, for a filter with {@code negative-cache}.
     *
     * @param scope names the method among the filter's (declaring class, method name and parameter
     *     types, the same on every instance): a miss is remembered for the method that found
     *     nothing, so that an empty answer of one method never rejects another's
     * @param emptyResults whether an empty result means "not found": not for a method that returns
     *     nothing ({@code void}, {@code Mono<Void>}, {@code CompletableFuture<Void>})
     * @param exceptions the exception types that, thrown by the method, mean "not found"
     */
    record Misses(String scope, boolean emptyResults, List<Class<? extends Throwable>> exceptions) {
    }

    /**
     * @param singleFlight whether the filter has {@code single-flight}: the put then ends the
     *     joining of flights that may have missed its row ({@link SingleFlight#writing})
     * @param target the filter named {@code filter}, resolved once for every call of the operation
     */
    record Put(String filter, KeyExpression key, String method, boolean singleFlight, OperationFilter target) {

        Put(String filter, KeyExpression key, String method, boolean singleFlight) {
            this(filter, key, method, singleFlight, new OperationFilter(filter));
        }
    }
}
