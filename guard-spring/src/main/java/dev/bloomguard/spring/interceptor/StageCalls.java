package dev.bloomguard.spring.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;

import dev.bloomguard.spring.BloomGuardRejectedException;

/**
 * {@code @BloomGuard} and {@code @BloomPut} on methods that return a {@code CompletableFuture}
 * or a {@code CompletionStage}, without blocking the caller's thread. The call returns a future
 * at once; the check is the filter's asynchronous one, and the method runs only once the key is
 * admitted. A rejection fails the future with {@link BloomGuardRejectedException} (under
 * {@code on-absent: return-empty} it completes with the empty value of its declared type
 * argument: null, {@code Optional.empty()}, an empty collection); a shed call fails it with
 * {@code BloomGuardShedException} whatever {@code on-absent} says. A put reads {@code #result}
 * from the completed value and the returned future completes only once the key is in the
 * filter; a failed add fails it with {@code BloomGuardException}.
 *
 * <p>The thread matters: when the answer needs no Redis (the mirror, a null key) the method
 * runs on the caller's thread, as it would without the guard; when it must wait for Redis it
 * runs on {@code CompletableFuture}'s default asynchronous executor, never on the Redis
 * client's I/O thread that delivered the answer, because a method that returns a future may
 * still do blocking work (JDBC, a synchronous Redis call) before it returns it. For the same
 * reason a future that waited for an add completes on that executor, so that the caller's
 * dependent stages do not run on the I/O thread either.
 */
final class StageCalls {

    private StageCalls() {
    }

    static CompletableFuture<Object> invoke(GuardChecks checks, MissRecorder misses, KeyAdds adds,
            MethodInvocation invocation, BloomOperations operations) {
        Object target = invocation.getThis();
        Object[] arguments = invocation.getArguments();
        BloomOperations.Guard guard = operations.guard();
        BloomOperations.Put put = operations.put();
        CompletableFuture<Object> call;
        if (guard == null) {
            call = proceed(invocation);
        }
        else {
            CompletableFuture<Admission> admission;
            try {
                admission = checks.admitsAsync(guard, target, arguments);
            }
            catch (RuntimeException ex) {
                return CompletableFuture.failedFuture(ex);
            }
            call = offRedisThread(admission).thenCompose(admitted -> {
                checks.audit(guard, admitted, invocation, ReturnKind.Kind.STAGE);
                return proceedIf(admitted, invocation, guard, misses);
            });
        }
        return put == null ? call
                : call.thenCompose(value -> offRedisThread(adds.addAsync(put, target, arguments, value))
                        .thenApply(added -> value));
    }

    /**
     * The same outcome, delivered on {@code CompletableFuture}'s default asynchronous executor when
     * it is not there yet: a future from the filter completes on the Redis client's I/O thread,
     * where neither the method nor the caller's dependent stages may run.
     */
    private static <T> CompletableFuture<T> offRedisThread(CompletableFuture<T> future) {
        if (future.isDone()) {
            return future;
        }
        CompletableFuture<T> moved = new CompletableFuture<>();
        future.whenCompleteAsync((value, error) -> {
            if (error != null) {
                moved.completeExceptionally(error);
            }
            else {
                moved.complete(value);
            }
        });
        return moved;
    }

    private static CompletableFuture<Object> proceedIf(Admission admission, MethodInvocation invocation,
            BloomOperations.Guard guard, MissRecorder misses) {
        if (admission.admitted()) {
            CompletableFuture<Object> call = proceed(invocation);
            // The result is handed on once the miss is remembered, so that a call after it finds it.
            return admission.missKey() == null ? call : call.handle((value, error) -> error != null
                    ? misses.rememberIfNotFound(guard, admission, error)
                            .<Object>thenCompose(done -> CompletableFuture.failedFuture(error))
                    : misses.rememberIfEmpty(guard, admission, value).thenApply(done -> value))
                    .thenCompose(outcome -> outcome);
        }
        if (admission.isShed()) {
            return CompletableFuture.failedFuture(GuardChecks.shed(guard, admission));
        }
        if (guard.emptyResult() == null) {
            return CompletableFuture.failedFuture(new BloomGuardRejectedException(guard.filter(), guard.method()));
        }
        return CompletableFuture.completedFuture(guard.emptyResult().get());
    }

    /** Runs the rest of the chain and the method, possibly on another thread than the call's. */
    @SuppressWarnings("unchecked")
    private static CompletableFuture<Object> proceed(MethodInvocation invocation) {
        try {
            MethodInvocation run = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
            // Later advice (AspectJ's among it) reads the current invocation from this thread.
            Object result = ExposeInvocationInterceptor.INSTANCE.invoke(run);
            return result == null ? CompletableFuture.completedFuture(null)
                    : ((CompletionStage<Object>) result).toCompletableFuture();
        }
        catch (Throwable ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }
}
