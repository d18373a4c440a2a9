package dev.bloomguard.spring.interceptor;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.expression.spel.SpelEvaluationException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.metrics.CheckOutcome;
import dev.bloomguard.spring.metrics.CheckReason;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.GuardObservations;

/**
 * Runs the check of {@code @BloomGuard} before the method and the add of {@code @BloomPut}
 * after it. Per call it does only what depends on the call: resolve the key from the
 * arguments, ask the filter once, count the outcome.
 *
 * <p>Only an {@link Membership#ABSENT} answer rejects a call (and, by policy, an unreachable
 * Redis); a filter that cannot tell always lets the call through.
 *
 * <p>Size: the blocking and the asynchronous forms of check and add still share this class with
 * the retry of refused adds; issue 15 puts it on Spring's cache pattern (a thin interceptor over
 * aspect-agnostic support, one handler per return kind).
 */
public final class BloomGuardInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardInterceptor.class);
    private static final String GUARD = "@BloomGuard";
    private static final String PUT = "@BloomPut";
    /** Outcomes of observations that {@code CheckOutcome} does not name. */
    private static final String ADDED = "added";
    private static final String FAILED = "failed";

    /**
     * A refused add is retried after 100 ms, then twice as late each time up to 5 s: once Redis
     * takes writes again, a committed key reaches the filter within 5 s (the README's bound).
     * After 2 minutes of refusals, or with more than 100,000 keys waiting for one filter, the
     * filter is re-warmed from its source instead.
     */
    static final Duration RETRY_FIRST_DELAY = Duration.ofMillis(100);
    static final Duration RETRY_MAX_DELAY = Duration.ofSeconds(5);
    static final Duration RETRY_GIVE_UP_AFTER = Duration.ofMinutes(2);
    static final int RETRY_CAPACITY = 100_000;

    private final BloomOperationSource source;
    private final Supplier<BloomFilterRegistry> registry;
    private final Supplier<GuardMetrics> metrics;
    private final Supplier<GuardObservations> observations;
    private final boolean blockWhenUnavailable;
    /** The innermost plain call with a put that is under way on this thread; see {@link #invoke}. */
    private static final ThreadLocal<PutDone> PUT_DONE = new ThreadLocal<>();

    private final PendingAdds pendingAdds;
    private final SingleFlight flights = new SingleFlight();
    private volatile BloomFilterRegistry resolvedRegistry;
    private volatile GuardMetrics resolvedMetrics;
    private volatile GuardObservations resolvedObservations;

    /**
     * @param registry resolved on first use, so creating the advisor does not create Redis connections early
     * @param metrics resolved on first use, for the same reason
     * @param blockWhenUnavailable {@code on-redis-failure: block}
     */
    public BloomGuardInterceptor(BloomOperationSource source, Supplier<BloomFilterRegistry> registry,
            Supplier<GuardMetrics> metrics, boolean blockWhenUnavailable) {
        this(source, registry, metrics, () -> GuardObservations.NONE, blockWhenUnavailable,
                filter -> CompletableFuture.failedFuture(
                        new IllegalStateException("no warmer to re-warm filter '" + filter.name() + "'")));
    }

    /**
     * @param observations resolved on first use, as the metrics are
     * @param rewarm reloads a filter from its source when adds that Redis refused cannot be kept
     *        for a retry; the future completes once the load is live
     */
    public BloomGuardInterceptor(BloomOperationSource source, Supplier<BloomFilterRegistry> registry,
            Supplier<GuardMetrics> metrics, Supplier<GuardObservations> observations, boolean blockWhenUnavailable,
            Function<RedisBloomFilter, CompletableFuture<?>> rewarm) {
        this.source = source;
        this.registry = registry;
        this.metrics = metrics;
        this.observations = observations;
        this.blockWhenUnavailable = blockWhenUnavailable;
        this.pendingAdds = new PendingAdds(RETRY_FIRST_DELAY, RETRY_MAX_DELAY, RETRY_GIVE_UP_AFTER, RETRY_CAPACITY,
                rewarm);
    }

    /** Stops retrying refused adds; called when the application context closes. */
    public void close() {
        pendingAdds.close();
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopUtils.getTargetClass(target);
        BloomOperations operations = source.get(invocation.getMethod(), targetClass);
        if (operations == null) {
            return invocation.proceed();
        }
        if (operations.put() != null && operations.put().singleFlight()) {
            flights.writing(operations.put().filter());
        }
        switch (operations.returns().kind()) {
            case STAGE -> {
                return StageCalls.invoke(this, invocation, operations);
            }
            case REACTIVE -> {
                return ReactiveCalls.invoke(this, invocation, operations);
            }
            case PLAIN -> {
            }
        }
        Object[] arguments = invocation.getArguments();
        BloomOperations.Guard guard = operations.guard();
        Admission admission = guard == null ? Admission.ADMITTED : admits(guard, target, arguments);
        if (!admission.admitted()) {
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
                if (filter(guard.filter()).isRememberedMissAsync(admission.missKey(), guard.misses().scope()).join()) {
                    // Remembered since this call's check, by a call that ran the method meanwhile: the
                    // check counted it passed; it is blocked now and counted so, without a second query.
                    metrics().record(guard.filter(), CheckOutcome.BLOCKED, CheckReason.REMEMBERED, -1);
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
                    rememberIfNotFound(guard, admission, ex).join();
                    throw ex;
                }
                rememberIfEmpty(guard, admission, result).join();
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
            add(operations.put(), target, arguments, result);
        }
        return result;
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

    /** {@link BloomPutAdvisor}'s advice: runs the method, then adds its key, inside any transaction around it. */
    Object proceedAndAdd(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopUtils.getTargetClass(target);
        BloomOperations operations = source.get(invocation.getMethod(), targetClass);
        if (operations != null && operations.put() != null && operations.put().singleFlight()) {
            flights.writing(operations.put().filter());
        }
        Object result = invocation.proceed();
        if (operations == null || operations.put() == null) {
            return result;
        }
        if (operations.returns().kind() == ReturnKind.Kind.PLAIN) {
            add(operations.put(), target, invocation.getArguments(), result);
        }
        else if (operations.returns().kind() == ReturnKind.Kind.REACTIVE) {
            // Each value is added before it goes on, so before a reactive transaction around this
            // advice (the method's own) completes and commits: a refused add rolls the row back.
            // The guard's advice learns of it from the subscriber's context, not from this thread.
            return ReactiveCalls.addingEach(this, operations, target, invocation.getArguments(), result);
        }
        else {
            return result;
        }
        PutDone call = PUT_DONE.get();
        if (call != null) {
            call.done = true;
        }
        return result;
    }

    /**
     * What the check of one call decided: whether it goes on and, when the filter remembers
     * misses and the key passed the filter itself, the key to remember should the call find
     * nothing, with when its check began.
     */
    record Admission(boolean admitted, Object missKey, long checkStarted) {

        static final Admission ADMITTED = new Admission(true, null, 0);
        static final Admission REJECTED = new Admission(false, null, 0);
    }

    private Admission admits(BloomOperations.Guard guard, Object target, Object[] arguments) {
        Object key = guardKey(guard, target, arguments);
        if (key == null) {
            return Admission.ADMITTED;
        }
        RedisBloomFilter filter = filter(guard.filter());
        GuardObservations.Pending observation = observations().check(guard.filter());
        long started = System.nanoTime();
        boolean addsPending = pendingAdds.holds(guard.filter());
        Membership answer;
        try {
            answer = key instanceof List<?> batch ? batchAnswer(filter.checkAll(batch)) : filter.check(key);
        }
        catch (IllegalArgumentException ex) {
            throw failed(observation, Keys.unhashable(ex, GUARD, guard.method(), guard.filter()));
        }
        catch (RuntimeException ex) {
            throw failed(observation, ex);
        }
        boolean remembered = answer == Membership.PRESENT && remembersMisses(guard, key)
                && filter.isRememberedMissAsync(key, guard.misses().scope()).join();
        return decide(guard, key, answer, remembered, addsPending, started, observation);
    }

    /** Whether a check of {@code key} that passed the filter may be a remembered miss, or be remembered. */
    private static boolean remembersMisses(BloomOperations.Guard guard, Object key) {
        return guard.remembersMisses() && !(key instanceof List<?>);
    }

    /**
     * Whether the call may go on, without blocking the calling thread: completes with the same
     * decision as the blocking path, on the thread that delivered the filter's answer (at once
     * when no Redis round trip was needed).
     *
     * @throws BloomGuardException for a key the guard cannot check, before anything is sent
     */
    CompletableFuture<Admission> admitsAsync(BloomOperations.Guard guard, Object target, Object[] arguments) {
        Object key = guardKey(guard, target, arguments);
        if (key == null) {
            return CompletableFuture.completedFuture(Admission.ADMITTED);
        }
        RedisBloomFilter filter = filter(guard.filter());
        GuardObservations.Pending observation = observations().check(guard.filter());
        long started = System.nanoTime();
        boolean addsPending = pendingAdds.holds(guard.filter());
        CompletableFuture<Membership> answer;
        try {
            answer = key instanceof List<?> batch
                    ? filter.checkAllAsync(batch).thenApply(BloomGuardInterceptor::batchAnswer)
                    : filter.checkAsync(key);
        }
        catch (IllegalArgumentException ex) {
            throw failed(observation, Keys.unhashable(ex, GUARD, guard.method(), guard.filter()));
        }
        if (observation != GuardObservations.Pending.NONE) {
            // Only when observed: the extra stage is an allocation per call.
            answer = answer.whenComplete((membership, error) -> {
                if (error != null) {
                    observation.stop(FAILED, error);
                }
            });
        }
        if (!remembersMisses(guard, key)) {
            return answer.thenApply(membership -> decide(guard, key, membership, false, addsPending, started, observation));
        }
        return answer.thenCompose(membership -> membership != Membership.PRESENT
                ? CompletableFuture.completedFuture(decide(guard, key, membership, false, addsPending, started, observation))
                : filter.isRememberedMissAsync(key, guard.misses().scope())
                        .thenApply(remembered -> decide(guard, key, membership, remembered, addsPending, started, observation)));
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


    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** Completes once the miss is remembered or could not be (never exceptionally). */
    private CompletableFuture<Void> remember(BloomOperations.Guard guard, Admission admission) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            // The method may have read a snapshot older than its check (REPEATABLE READ): a key
            // committed and added before the check would look absent. Not remembered.
            return DONE;
        }
        try {
            return filter(guard.filter())
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

    /**
     * The key {@code guard} checks for this call: null to let it through unchecked, a {@link List}
     * (without nulls) for a batch, otherwise one key.
     */
    Object guardKey(BloomOperations.Guard guard, Object target, Object[] arguments) {
        Object value = resolve(guard.key(), target, arguments, null, guard.method(), guard.filter());
        return Keys.of(value, GUARD, guard.method(), guard.filter());
    }

    /**
     * The key {@code put} adds for this call's {@code result} (an {@code Optional} stands for its
     * value), as {@link #guardKey}; null to add nothing, as for a key read from a null result.
     */
    Object putKey(BloomOperations.Put put, Object target, Object[] arguments, Object result) {
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
            // Before 0.2 #result was the Optional itself ("#result.get().id"): still honoured, with a warning.
            key = resolve(put.key(), target, arguments, result, put.method(), put.filter());
            log.warn("@BloomPut on {}: #result is the Optional's value now; write the key without .get()",
                    put.method());
        }
        return Keys.of(key, PUT, put.method(), put.filter());
    }

    /**
     * Adds the key of {@code result} without blocking the calling thread: the future completes
     * with the keys added (none when the key was null) once they are in the filter, or fails with
     * {@link BloomGuardException}.
     */
    CompletableFuture<List<?>> addAsync(BloomOperations.Put put, Object target, Object[] arguments, Object result) {
        if (put.singleFlight()) {
            flights.writing(put.filter());
        }
        try {
            Object key = putKey(put, target, arguments, result);
            if (key == null) {
                return CompletableFuture.completedFuture(List.of());
            }
            RedisBloomFilter filter = filter(put.filter());
            List<?> keys = key instanceof List<?> batch ? batch : List.of(key);
            // A future completed on the caller's thread inside its transaction: forgotten again at commit.
            forgetAgainAfterCommit(filter, keys);
            GuardObservations.Pending observation = observations().put(put.filter());
            CompletableFuture<Void> added;
            try {
                added = filter.addAllAsync(keys);
            }
            catch (RuntimeException ex) {
                throw failed(observation, ex);
            }
            return added
                    .<List<?>>handle((done, error) -> {
                        if (error != null) {
                            // Whether a transaction will roll the row back is not known here: fail the
                            // result so that one can, and keep the key so that a committed row is not
                            // blocked. First, so that nothing reported after it can skip it.
                            pendingAdds.retry(filter, keys);
                        }
                        metrics().recordAdd(put.filter(), keys.size(), error != null);
                        observation.stop(error == null ? ADDED : FAILED, error);
                        if (error != null) {
                            throw addFailed(put, error instanceof CompletionException && error.getCause() != null
                                    ? error.getCause() : error);
                        }
                        return keys;
                    });
        }
        catch (IllegalArgumentException ex) {
            return CompletableFuture.failedFuture(Keys.unhashable(ex, PUT, put.method(), put.filter()));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    RedisBloomFilter filter(String name) {
        return registry().filter(name);
    }

    /** A put to {@code filter} has just committed, outside any thread-bound transaction (a reactive one's). */
    void written(String filter) {
        flights.written(filter);
    }

    /**
     * Counts the filter's answer, closes the check's observation with it and says whether the
     * call may go on.
     *
     * @param remembered whether a key the filter passed is a remembered miss
     * @param addsPending whether this instance had refused adds of the filter still being retried
     *     when the check was sent: asked again only now, a retry that landed after Redis read the
     *     bits (and before their reply came back) would let a clear bit of its key block it
     */
    private Admission decide(BloomOperations.Guard guard, Object key, Membership answer, boolean remembered,
            boolean addsPending, long started, GuardObservations.Pending observation) {
        long elapsedNanos = System.nanoTime() - started;
        CheckOutcome outcome = switch (answer) {
            case PRESENT -> CheckOutcome.PASSED;
            case ABSENT -> CheckOutcome.BLOCKED;
            case NOT_READY, UNAVAILABLE -> CheckOutcome.BYPASSED;
        };
        CheckReason reason = CheckReason.FILTER;
        if (remembered) {
            answer = Membership.ABSENT;
            outcome = CheckOutcome.BLOCKED;
            reason = CheckReason.REMEMBERED;
        }
        if (answer == Membership.ABSENT && (addsPending || pendingAdds.holds(guard.filter()))) {
            // This instance has adds for the filter that Redis refused and that are still being retried.
            outcome = CheckOutcome.BYPASSED;
            answer = Membership.NOT_READY;
            reason = CheckReason.SUSPENDED;
        }
        else if (outcome == CheckOutcome.BYPASSED) {
            reason = bypassReason(filter(guard.filter()), answer);
        }
        metrics().record(guard.filter(), outcome, reason, elapsedNanos);
        observation.stop(outcome.tag(), null);
        if (answer == Membership.ABSENT) {
            log.debug("Filter '{}' rejected key {} for {} ({})", guard.filter(), key, guard.method(), reason.tag());
            return Admission.REJECTED;
        }
        if (answer == Membership.UNAVAILABLE && blockWhenUnavailable) {
            return Admission.REJECTED;
        }
        return answer == Membership.PRESENT && remembersMisses(guard, key) ? new Admission(true, key, started)
                : Admission.ADMITTED;
    }

    /**
     * Why {@code filter} could not answer, read after the fact: the state may have changed in
     * between, which moves a count from one reason to a neighbouring one, never the outcome.
     */
    private static CheckReason bypassReason(RedisBloomFilter filter, Membership answer) {
        if (answer == Membership.UNAVAILABLE) {
            return filter.circuitState() == CircuitBreaker.State.CLOSED ? CheckReason.REDIS_ERROR
                    : CheckReason.CIRCUIT_OPEN;
        }
        return filter.isAnsweringSuspended() ? CheckReason.SUSPENDED : CheckReason.NOT_READY;
    }

    /** A batch is rejected only when every element is absent; otherwise the most permissive answer wins. */
    static Membership batchAnswer(List<Membership> answers) {
        if (answers.isEmpty()) {
            return Membership.PRESENT;
        }
        boolean unavailable = false;
        boolean notReady = false;
        for (Membership answer : answers) {
            switch (answer) {
                case PRESENT -> {
                    return Membership.PRESENT;
                }
                case NOT_READY -> notReady = true;
                case UNAVAILABLE -> unavailable = true;
                case ABSENT -> {
                }
            }
        }
        if (notReady) {
            return Membership.NOT_READY;
        }
        return unavailable ? Membership.UNAVAILABLE : Membership.ABSENT;
    }

    private void add(BloomOperations.Put put, Object target, Object[] arguments, Object result) {
        if (put.singleFlight()) {
            flights.writing(put.filter());
        }
        Object key = putKey(put, target, arguments, result);
        if (key == null) {
            return;
        }
        RedisBloomFilter filter = filter(put.filter());
        int keys = key instanceof List<?> batch ? batch.size() : 1;
        GuardObservations.Pending observation = observations().put(put.filter());
        try {
            if (key instanceof List<?> batch) {
                filter.addAll(batch);
            }
            else {
                filter.add(key);
            }
            forgetAgainAfterCommit(filter, key instanceof List<?> batch ? batch : List.of(key));
            metrics().recordAdd(put.filter(), keys, false);
            observation.stop(ADDED, null);
        }
        catch (BitmapStoreException ex) {
            pendingAdds.retry(filter, key instanceof List<?> batch ? batch : List.of(key));
            metrics().recordAdd(put.filter(), keys, true);
            observation.stop(FAILED, ex);
            if (TransactionSynchronizationManager.isActualTransactionActive()) {
                // The row is not committed yet: failing the call rolls it back. (The retried key,
                // if the caller commits anyway, is then a harmless false positive.)
                throw addFailed(put, ex);
            }
            log.warn("@BloomPut on {} could not add to filter '{}' ({}); its row is already committed, so the add is"
                    + " retried in the background and this instance does not block the filter until it lands",
                    put.method(), put.filter(), ex.getMessage());
        }
        catch (IllegalArgumentException ex) {
            throw failed(observation, Keys.unhashable(ex, PUT, put.method(), put.filter()));
        }
        catch (RuntimeException ex) {
            throw failed(observation, ex);
        }
    }

    /**
     * Inside a transaction the add comes before the commit, so a lookup elsewhere may still not
     * find the row for as long as the transaction runs, and remember a miss after the add's mark
     * expired: once the transaction commits, its keys' misses are forgotten again (a fresh mark, a
     * delete) before the committing call returns; a failure is logged, and the miss ends with its ttl.
     */
    private static void forgetAgainAfterCommit(RedisBloomFilter filter, List<?> keys) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                try {
                    // Before the committing call returns, as the add itself was.
                    filter.forgetMissesAsync(keys).join();
                }
                catch (RuntimeException ex) {
                    log.warn("Filter '{}': could not forget remembered misses of keys committed just now ({});"
                            + " a remembered one stays rejected until its negative-cache ttl ends", filter.name(),
                            ex.getMessage());
                }
            }
        });
    }

    /** Closes {@code observation} as failed by {@code error} and returns the error to throw. */
    private static <E extends RuntimeException> E failed(GuardObservations.Pending observation, E error) {
        observation.stop(FAILED, error);
        return error;
    }

    static BloomGuardException addFailed(BloomOperations.Put put, Throwable cause) {
        return new BloomGuardException("@BloomPut on " + put.method() + " could not add the key to filter '"
                + put.filter() + "': " + cause.getMessage(), cause);
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
     * kept as the cause: its message may quote the caller's input ({@code For input string: "..."}),
     * which must reach neither an ERROR log nor an HTTP body; it is logged here at DEBUG.
     */
    private static BloomGuardException keyFailed(String method, String filter, RuntimeException ex) {
        log.debug("Key expression of {} (filter '{}') failed", method, filter, ex);
        String what = ex instanceof KeyExpression.NullPart ? ex.getMessage()
                : ex.getClass().getName() + (ex instanceof SpelEvaluationException spel
                        ? " (" + spel.getMessageCode().name() + ")" : "")
                        + "; its message may quote the call's arguments, so it is logged at DEBUG by "
                        + BloomGuardInterceptor.class.getName() + " only";
        return new BloomGuardException("Key expression of " + method + " (filter '" + filter + "') failed: " + what);
    }

    /**
     * @throws BloomGuardConfigurationException when there are no filters to guard with
     */
    void resolveDependencies() {
        try {
            registry();
        }
        catch (RuntimeException ex) {
            throw new BloomGuardConfigurationException("@BloomGuard and @BloomPut need the bloom-guard filters,"
                    + " which need Redis: a RedisConnectionFactory (spring-boot-starter-data-redis and spring.data.redis.*)"
                    + " or bloom-guard.redis.*: "
                    + ex.getMessage(), ex);
        }
        metrics();
    }

    private BloomFilterRegistry registry() {
        BloomFilterRegistry current = resolvedRegistry;
        if (current == null) {
            current = registry.get();
            resolvedRegistry = current;
        }
        return current;
    }

    private GuardObservations observations() {
        GuardObservations current = resolvedObservations;
        if (current == null) {
            current = observations.get();
            resolvedObservations = current;
        }
        return current;
    }

    private GuardMetrics metrics() {
        GuardMetrics current = resolvedMetrics;
        if (current == null) {
            current = metrics.get();
            resolvedMetrics = current;
        }
        return current;
    }
}
