package dev.bloomguard.spring.interceptor;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * After a call that its check let through: remembers the call's key as a miss when the call
 * found nothing (an empty result, a "not found" exception), so that the next lookup of the key
 * is rejected without running the method. Apart from the checks because it runs after the
 * method, on whatever thread and in whatever form the method's result arrives; it never fails
 * the call. Logs under {@link BloomGuardInterceptor}'s name, the category the documentation gives.
 */
final class MissRecorder {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardInterceptor.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final GuardDependencies dependencies;

    MissRecorder(GuardDependencies dependencies) {
        this.dependencies = dependencies;
    }

    /**
     * After a call admitted by {@code admission} returned {@code result}: remembers its key when
     * the result says nothing was found (null, an empty {@code Optional}).
     */
    CompletableFuture<Void> rememberIfEmpty(BloomOperations.Guard guard, Admission admission, Object result) {
        return admission.missKey() != null && guard.misses().emptyResults() && foundNothing(result)
                ? remember(guard, admission) : DONE;
    }

    /** After a call admitted by {@code admission} threw {@code error}: remembers its key when the error means "not found". */
    CompletableFuture<Void> rememberIfNotFound(BloomOperations.Guard guard, Admission admission, Throwable error) {
        Throwable thrown = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return admission.missKey() != null && guard.meansNotFound(thrown) ? remember(guard, admission) : DONE;
    }

    /** After a reactive call admitted by {@code admission} completed without a value. */
    CompletableFuture<Void> rememberEmpty(BloomOperations.Guard guard, Admission admission) {
        return admission.missKey() != null && guard.misses().emptyResults() ? remember(guard, admission) : DONE;
    }

    /** Completes once the miss is remembered or could not be (never exceptionally). */
    private CompletableFuture<Void> remember(BloomOperations.Guard guard, Admission admission) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            // The method may have read a snapshot older than its check (REPEATABLE READ): a key
            // committed and added before the check would look absent. Not remembered.
            return DONE;
        }
        try {
            return guard.target().in(dependencies)
                    .rememberMissAsync(admission.missKey(), guard.misses().scope(), admission.checkStarted())
                    .handle((remembered, error) -> null);
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not remember a miss of {}: {}", guard.filter(), guard.method(),
                    ex.getMessage());
            return DONE;
        }
    }

    /**
     * Null or an empty {@code Optional}: what a lookup returns for a key it did not find. Never an
     * empty collection or map: a user's empty list of orders does not say the user does not
     * exist, and remembered it would hide the user's first order for the ttl (the order's add is
     * not an add of the user's key) or, under {@code on-absent: throw}, turn the list into a 404.
     */
    static boolean foundNothing(Object result) {
        return result == null || result instanceof Optional<?> optional && optional.isEmpty();
    }
}
