package dev.bloomguard.spring.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.core.ReactiveAdapter;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomGuardRejectedException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @BloomGuard} and {@code @BloomPut} on methods that return a reactive type Spring's
 * {@code ReactiveAdapterRegistry} knows ({@code Mono}, {@code Flux}, any {@code Publisher},
 * RxJava, Mutiny...): seen as a {@code Mono} (one value at most) or a {@code Flux} and
 * handed back as the declared type. Nothing happens until subscription, and nothing blocks.
 * The check is the filter's asynchronous one (the mirror, or one {@code BITFIELD_RO} on
 * Lettuce's non-blocking connection); the method runs only once the key is admitted, on the
 * thread that delivered the answer; a rejection is an error signal with
 * {@link BloomGuardRejectedException}, or completes empty under {@code on-absent: return-empty}; a
 * shed call is an error signal with {@code BloomGuardShedException} either way.
 * A put adds the key of each emitted value before passing the value on, so a check that follows
 * the emission sees it. A reactive transaction is found in the subscriber's context, as Spring's
 * reactive transactions keep it: its commit forgets the put keys' remembered misses again, and
 * what a call inside it did not find is not remembered.
 *
 * <p>Only this class touches Project Reactor, and only for methods whose return type has a
 * reactive adapter ({@link ReturnKind} tells), so nothing else in the starter loads a Reactor class.
 */
final class ReactiveCalls {

    private static final Logger log = LoggerFactory.getLogger(ReactiveCalls.class);

    private ReactiveCalls() {
    }

    static Object invoke(GuardChecks checks, MissRecorder misses, KeyAdds adds, MethodInvocation invocation,
            BloomOperations operations) {
        Object target = invocation.getThis();
        Object[] arguments = invocation.getArguments();
        BloomOperations.Guard guard = operations.guard();
        ReactiveAdapter adapter = operations.returns().adapter();
        if (!adapter.isMultiValue()) {
            Mono<Object> call = guard == null ? Mono.defer(() -> Mono.from(proceed(adds, invocation, operations)))
                    : admission(checks, guard, target, arguments)
                            .flatMap(admitted -> admitted.admitted()
                                    ? rememberingMisses(misses, guard, admitted,
                                            Mono.from(proceed(adds, invocation, operations)))
                                    : auditedRejection(checks, guard, admitted, invocation));
            return adapter.fromPublisher(call);
        }
        Flux<Object> call = guard == null ? Flux.defer(() -> proceed(adds, invocation, operations))
                : admission(checks, guard, target, arguments)
                        .flatMapMany(admitted -> admitted.admitted()
                                ? rememberingMisses(misses, guard, admitted,
                                        Flux.from(proceed(adds, invocation, operations)))
                                : auditedRejection(checks, guard, admitted, invocation));
        return adapter.fromPublisher(call);
    }

    /**
     * {@code result}, the method's reactive value, adding the key of each value it emits before
     * passing the value on: what {@link BloomPutAdvisor}'s advice returns, inside the method's
     * transaction advice.
     */
    static Object addingEach(KeyAdds adds, BloomOperations operations, Object target,
            Object[] arguments, Object result) {
        ReactiveAdapter adapter = operations.returns().adapter();
        @SuppressWarnings("unchecked")
        Publisher<Object> published = result == null ? Mono.empty() : (Publisher<Object>) adapter.toPublisher(result);
        Publisher<Object> adding = addingEach(adds, operations.put(), target, arguments, published,
                adapter.isMultiValue(), () -> false);
        // Tells the guard's advice further out (see proceed) that the put is made here.
        return adapter.fromPublisher(adapter.isMultiValue()
                ? Flux.deferContextual(context -> {
                    context.<PutMadeInside>getOrEmpty(PutMadeInside.class).ifPresent(PutMadeInside::set);
                    return adding;
                })
                : Mono.deferContextual(context -> {
                    context.<PutMadeInside>getOrEmpty(PutMadeInside.class).ifPresent(PutMadeInside::set);
                    return Mono.from(adding);
                }));
    }

    /**
     * Set, in the subscriber's context, by {@link BloomPutAdvisor}'s advice as it is subscribed to:
     * a transaction advice between the two runs the method (and the advice) only on subscription,
     * so whether the advice is in the chain is known only then, before any value.
     */
    private static final class PutMadeInside {

        private volatile boolean made;

        void set() {
            made = true;
        }

        boolean get() {
            return made;
        }
    }

    /** {@code published}, adding each value's key before passing it on, unless {@code madeElsewhere} by then. */
    private static Publisher<Object> addingEach(KeyAdds adds, BloomOperations.Put put,
            Object target, Object[] arguments, Publisher<Object> published, boolean multiValue,
            BooleanSupplier madeElsewhere) {
        Function<Object, Mono<Object>> adding = value -> madeElsewhere.getAsBoolean()
                ? Mono.just(value) : add(adds, put, target, arguments, value).thenReturn(value);
        return multiValue ? Flux.from(published).concatMap(adding) : Mono.from(published).flatMap(adding);
    }

    /**
     * {@code call}, which remembers its key as a miss when it completes empty or fails with an
     * exception that means "not found", if the admission asks for that.
     */
    private static Mono<Object> rememberingMisses(MissRecorder misses, BloomOperations.Guard guard,
            Admission admission, Mono<Object> call) {
        if (admission.missKey() == null) {
            return call;
        }
        return call.flatMap(value -> outsideTransactions(() -> misses.rememberIfEmpty(guard, admission, value))
                        .thenReturn(value))
                .switchIfEmpty(Mono.defer(() -> outsideTransactions(() -> misses.rememberEmpty(guard, admission))
                        .then(Mono.empty())))
                .onErrorResume(error -> outsideTransactions(() -> misses.rememberIfNotFound(guard, admission, error))
                        .then(Mono.error(error)));
    }

    /** A {@code Flux} is a collection: its completing empty is no miss, only a not-found exception is. */
    private static Flux<Object> rememberingMisses(MissRecorder misses, BloomOperations.Guard guard,
            Admission admission, Flux<Object> call) {
        if (admission.missKey() == null) {
            return call;
        }
        return call.onErrorResume(error -> outsideTransactions(() -> misses.rememberIfNotFound(guard, admission, error))
                .then(Mono.error(error)));
    }

    /**
     * Runs {@code remember} unless the subscriber's context holds an active reactive transaction
     * (a {@code TransactionalOperator}'s, or a reactive {@code @Transactional} method's): as on a
     * blocking call in a transaction, the method may have read a snapshot older than its check, in
     * which a key committed and added before the check looks absent.
     */
    private static Mono<Void> outsideTransactions(Supplier<CompletableFuture<Void>> remember) {
        return TransactionSynchronizationManager.forCurrentTransaction()
                .map(TransactionSynchronizationManager::isActualTransactionActive)
                .onErrorResume(NoTransactionException.class, none -> Mono.just(false))
                .flatMap(inTransaction -> inTransaction ? Mono.empty() : Mono.fromFuture(remember));
    }

    /** Whether the call may go on, as {@link GuardChecks#admitsAsync} decides it at subscription. */
    private static Mono<Admission> admission(GuardChecks checks, BloomOperations.Guard guard, Object target,
            Object[] arguments) {
        return Mono.defer(() -> Mono.fromFuture(checks.admitsAsync(guard, target, arguments), true));
    }

    /** The first value {@code publisher} emits, or null when it completes empty. */
    static CompletableFuture<Object> firstValue(Publisher<?> publisher) {
        return Flux.from(publisher).next().<Object>map(value -> value).toFuture();
    }

    private static Mono<Object> auditedRejection(GuardChecks checks, BloomOperations.Guard guard, Admission admission,
            MethodInvocation invocation) {
        if (admission.isShed()) {
            return Mono.error(GuardChecks.shed(guard, admission));
        }
        checks.audit(guard, admission, invocation, ReturnKind.Kind.REACTIVE);
        return rejection(guard);
    }

    private static Mono<Object> rejection(BloomOperations.Guard guard) {
        return guard.emptyResult() == null ? Mono.error(new BloomGuardRejectedException(guard.filter(), guard.method()))
                : Mono.empty();
    }

    private static Mono<Void> add(KeyAdds adds, BloomOperations.Put put, Object target, Object[] arguments,
            Object value) {
        Runnable written = put.singleFlight() ? () -> adds.written(put.filter()) : () -> { };
        return Mono.defer(() -> Mono.fromFuture(adds.addAsync(put, target, arguments, value), true))
                .flatMap(keys -> keys.isEmpty() ? Mono.empty()
                        : forgetAgainAfterCommit(adds.filter(put), keys, written));
    }

    /**
     * Inside a reactive transaction the add comes before the commit, so a lookup elsewhere may not
     * find the row for as long as the transaction runs, and remember a miss once the add's mark
     * expired: when the transaction commits, the keys' misses are forgotten again before the
     * commit completes (as {@code KeyAdds} does for a blocking transaction); a
     * failure is logged, and the miss ends with its ttl.
     */
    private static Mono<Void> forgetAgainAfterCommit(RedisBloomFilter filter, List<?> keys, Runnable written) {
        return TransactionSynchronizationManager.forCurrentTransaction()
                .filter(TransactionSynchronizationManager::isSynchronizationActive)
                .doOnNext(transaction -> transaction.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public Mono<Void> afterCompletion(int status) {
                        // A single flight begun before the commit is joined by no caller that comes after it.
                        written.run();
                        return Mono.empty();
                    }

                    @Override
                    public Mono<Void> afterCommit() {
                        written.run();
                        return Mono.fromFuture(() -> filter.forgetMissesAsync(keys)).onErrorResume(error -> {
                            log.warn("Filter '{}': could not forget remembered misses of keys committed just now ({});"
                                    + " a remembered one stays rejected until its negative-cache ttl ends",
                                    filter.name(), error.getMessage());
                            return Mono.empty();
                        });
                    }
                }))
                .onErrorResume(NoTransactionException.class, none -> Mono.empty())
                .then();
    }

    /**
     * Runs the rest of the chain and the method: once per subscription, on a clone of the
     * invocation, since a Reactor sequence may be subscribed more than once. A put is made by
     * {@link BloomPutAdvisor}'s advice further in; should that advice not be in the chain (a proxy
     * built by hand with the guard's advisor alone), each value is added here.
     */
    @SuppressWarnings("unchecked")
    private static Publisher<Object> proceed(KeyAdds adds, MethodInvocation invocation,
            BloomOperations operations) {
        ReactiveAdapter adapter = operations.returns().adapter();
        Publisher<Object> published;
        try {
            MethodInvocation run = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
            // Later advice (AspectJ's among it) reads the current invocation from this thread.
            Object result = ExposeInvocationInterceptor.INSTANCE.invoke(run);
            published = result == null ? Mono.empty() : (Publisher<Object>) adapter.toPublisher(result);
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
        BloomOperations.Put put = operations.put();
        if (put == null) {
            return published;
        }
        PutMadeInside inside = new PutMadeInside();
        Publisher<Object> adding = addingEach(adds, put, invocation.getThis(), invocation.getArguments(),
                published, adapter.isMultiValue(), inside::get);
        return adapter.isMultiValue()
                ? Flux.from(adding).contextWrite(context -> context.put(PutMadeInside.class, inside))
                : Mono.from(adding).contextWrite(context -> context.put(PutMadeInside.class, inside));
    }
}
