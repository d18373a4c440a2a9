package dev.bloomguard.spring.interceptor;

import org.aopalliance.intercept.MethodInvocation;

import dev.bloomguard.spring.BloomGuardRejectedException;

/**
 * {@code @BloomGuard} and {@code @BloomPut} on methods that return a plain value (neither a
 * {@code CompletionStage} nor a reactive type), on the caller's thread: the check blocks for
 * the filter's answer, a rejection throws {@link BloomGuardRejectedException} (or returns the
 * empty value under {@code on-absent: return-empty}), a shed call throws
 * {@code BloomGuardShedException} whatever {@code on-absent} says, a miss is remembered before the result is
 * returned. A put is made by {@link BloomPutAdvisor}'s advice further in, inside any transaction
 * ({@link #add}); should that advice not be in the chain (a proxy built by hand with the guard's
 * advisor alone), the key is added here, after the method.
 */
final class PlainCalls {

    /** The innermost plain call with a put that is under way on this thread; see {@link #invoke}. */
    private static final ThreadLocal<PutDone> PUT_DONE = new ThreadLocal<>();

    private PlainCalls() {
    }

    static Object invoke(GuardChecks checks, MissRecorder misses, KeyAdds adds, SingleFlight flights,
            MethodInvocation invocation, BloomOperations operations) throws Throwable {
        Object target = invocation.getThis();
        Object[] arguments = invocation.getArguments();
        BloomOperations.Guard guard = operations.guard();
        Admission admission = guard == null ? Admission.ADMITTED : checks.admits(guard, target, arguments);
        if (!admission.admitted()) {
            if (admission.isShed()) {
                throw GuardChecks.shed(guard, admission);
            }
            checks.audit(guard, admission, invocation, ReturnKind.Kind.PLAIN);
            if (guard.emptyResult() == null) {
                throw new BloomGuardRejectedException(guard.filter(), guard.method());
            }
            return guard.emptyResult().get();
        }
        if (operations.put() == null) {
            if (admission.missKey() == null) {
                return guard != null && guard.singleFlight() ? flights.run(guard.filter(), invocation)
                        : invocation.proceed();
            }
            // Remembered before the result is returned (and before a flight's followers get it), so
            // that a call arriving after this one finds the miss remembered.
            SingleFlight.Body remembering = () -> {
                if (checks.rememberedSinceCheck(guard, admission)) {
                    if (guard.emptyResult() == null) {
                        throw new BloomGuardRejectedException(guard.filter(), guard.method());
                    }
                    return guard.emptyResult().get();
                }
                Object result;
                try {
                    result = invocation.proceed();
                }
                catch (Throwable ex) {
                    misses.rememberIfNotFound(guard, admission, ex).join();
                    throw ex;
                }
                misses.rememberIfEmpty(guard, admission, result).join();
                return result;
            };
            return guard.singleFlight() ? flights.run(guard.filter(), invocation, remembering) : remembering.call();
        }
        // BloomPutAdvisor, inside any transaction, normally adds the key; should it not be in this
        // proxy's chain (a proxy built by hand with this advisor alone), the add happens here.
        PutDone mine = PutDone.watch();
        Object result;
        try {
            result = invocation.proceed();
        }
        finally {
            mine.close();
        }
        if (!mine.done) {
            adds.add(operations.put(), target, arguments, result);
        }
        return result;
    }

    /**
     * {@link BloomPutAdvisor}'s advice for a plain method, once it ran: adds the key of its
     * {@code result}, inside any transaction around the advice, and tells the guard's advice
     * further out that the put is made.
     */
    static void add(KeyAdds adds, BloomOperations.Put put, Object target, Object[] arguments, Object result) {
        adds.add(put, target, arguments, result);
        PutDone call = PUT_DONE.get();
        if (call != null) {
            call.done = true;
        }
    }

    /**
     * Whether {@link BloomPutAdvisor}'s advice made the put of the call that watches it: a call
     * runs the rest of its chain between {@link #watch} and {@link #close}, and adds itself only
     * when that advice was not in it.
     */
    private static final class PutDone implements AutoCloseable {

        private final PutDone outer = PUT_DONE.get();
        private boolean done;

        static PutDone watch() {
            PutDone mine = new PutDone();
            PUT_DONE.set(mine);
            return mine;
        }

        @Override
        public void close() {
            PUT_DONE.set(outer);
        }
    }
}
