package dev.bloomguard.spring.interceptor;

import java.util.function.Supplier;

/**
 * What the annotations of one method ask for, resolved and validated once.
 *
 * @param guard the check before the call, or null
 * @param put the add after the call, or null
 */
record BloomOperations(Guard guard, Put put) {

    /**
     * @param emptyResult what a rejected call returns, or null to throw
     */
    record Guard(String filter, KeyExpression key, Supplier<Object> emptyResult, String method) {
    }

    record Put(String filter, KeyExpression key, String method) {
    }
}
