package dev.bloomguard.spring.interceptor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.expression.spel.SpelEvaluationException;

import dev.bloomguard.spring.BloomGuardException;

/**
 * The key a call checks or adds: its key expression evaluated on the call's arguments (and, for
 * a put, its result), then read by {@link Keys#of}. Apart from the checks and the adds because
 * both need it, and so that a failed expression is reported the same way on either side:
 * without the caller's input in the message.
 *
 * <p>Logs under {@link BloomGuardInterceptor}'s name, the category the documentation gives.
 */
final class CallKeys {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardInterceptor.class);
    static final String GUARD = "@BloomGuard";
    static final String PUT = "@BloomPut";

    private CallKeys() {
    }

    /**
     * The key {@code guard} checks for this call: null to let it through unchecked, a {@link java.util.List}
     * (without nulls) for a batch, otherwise one key.
     */
    static Object guardKey(BloomOperations.Guard guard, Object target, Object[] arguments) {
        Object value = resolve(guard.key(), target, arguments, null, guard.method(), guard.filter());
        return Keys.of(value, GUARD, guard.method(), guard.filter());
    }

    /**
     * The key {@code put} adds for this call's {@code result} (an {@code Optional} stands for its
     * value), as {@link #guardKey}; null to add nothing, as for a key read from a null result.
     */
    static Object putKey(BloomOperations.Put put, Object target, Object[] arguments, Object result) {
        Object value = Keys.unwrap(result);
        if (value == null && put.key().readsResult()) {
            return null;
        }
        Object key;
        try {
            key = put.key().resolve(target, arguments, value);
        }
        catch (RuntimeException ex) {
            if (value == result) {
                throw keyFailed(put.method(), put.filter(), ex);
            }
            // An expression written for the Optional itself ("#result.get().id"): honoured, with a warning.
            key = resolve(put.key(), target, arguments, result, put.method(), put.filter());
            log.warn("@BloomPut on {}: #result is the Optional's value, as in Spring's cache abstraction; write the"
                    + " key without .get()", put.method());
        }
        return Keys.of(key, PUT, put.method(), put.filter());
    }

    private static Object resolve(KeyExpression expression, Object target, Object[] arguments, Object result,
            String method, String filter) {
        try {
            return expression.resolve(target, arguments, result);
        }
        catch (RuntimeException ex) {
            throw keyFailed(method, filter, ex);
        }
    }

    /**
     * A key expression that failed on this call's arguments. What it threw is neither quoted nor
     * kept as the cause, and its message is logged nowhere: it may quote the caller's input
     * ({@code For input string: "..."}), which must reach no log line and no HTTP body. Its type
     * and stack frames are logged at DEBUG, to find the expression's mistake by.
     */
    private static BloomGuardException keyFailed(String method, String filter, RuntimeException ex) {
        log.debug("Key expression of {} (filter '{}') failed", method, filter, WithheldMessages.of(ex));
        String what = ex instanceof KeyExpression.NullPart ? ex.getMessage()
                : ex.getClass().getName() + (ex instanceof SpelEvaluationException spel
                        ? " (" + spel.getMessageCode().name() + ")" : "")
                        + "; its message is not shown, as it may quote the call's arguments (its stack is logged"
                        + " at DEBUG by " + BloomGuardInterceptor.class.getName() + ")";
        return new BloomGuardException("Key expression of " + method + " (filter '" + filter + "') failed: " + what);
    }
}
