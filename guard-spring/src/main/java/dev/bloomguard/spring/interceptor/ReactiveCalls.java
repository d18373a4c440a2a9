package dev.bloomguard.spring.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.spring.BloomGuardRejectedException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @BloomGuard} and {@code @BloomPut} on methods that return a {@code Mono} or a
 * {@code Flux}: nothing happens until subscription, and nothing blocks. The check is the
 * filter's asynchronous one (the mirror, or one {@code BITFIELD_RO} on Lettuce's non-blocking
 * connection); the method runs only once the key is admitted, on the thread that delivered the
 * answer; a rejection is {@code Mono.error(BloomGuardRejectedException)}, or an empty
 * {@code Mono}/{@code Flux} under {@code on-absent: return-empty}. A put adds the key of each
 * emitted value before passing the value on, so a check that follows the emission sees it.
 *
 * <p>Only this class touches Project Reactor, and only for methods whose return type is a
 * Reactor type ({@link BloomOperationSource#shapeOf} tells by name), so nothing else in the
 * starter loads a Reactor class.
 */
final class ReactiveCalls {

    private ReactiveCalls() {
    }

    static Object invoke(BloomGuardInterceptor interceptor, MethodInvocation invocation, BloomOperations operations) {
        Object target = invocation.getThis();
        Object[] arguments = invocation.getArguments();
        BloomOperations.Guard guard = operations.guard();
        BloomOperations.Put put = operations.put();
        if (operations.shape() == BloomOperations.Shape.MONO) {
            Mono<Object> call = guard == null ? Mono.defer(() -> Mono.from(proceed(invocation)))
                    : admission(interceptor, guard, target, arguments)
                            .flatMap(admitted -> admitted ? Mono.from(proceed(invocation)) : rejection(guard));
            return put == null ? call
                    : call.flatMap(value -> add(interceptor, put, target, arguments, value).thenReturn(value));
        }
        Flux<Object> call = guard == null ? Flux.defer(() -> proceed(invocation))
                : admission(interceptor, guard, target, arguments)
                        .flatMapMany(admitted -> admitted ? proceed(invocation) : rejection(guard));
        return put == null ? call
                : call.concatMap(value -> add(interceptor, put, target, arguments, value).thenReturn(value));
    }

    /** Whether the call may go on: true for a null key, otherwise the filter's answer as the blocking path decides it. */
    private static Mono<Boolean> admission(BloomGuardInterceptor interceptor, BloomOperations.Guard guard,
            Object target, Object[] arguments) {
        return Mono.defer(() -> {
            Object key = interceptor.guardKey(guard, target, arguments);
            if (key == null) {
                return Mono.just(Boolean.TRUE);
            }
            RedisBloomFilter filter = interceptor.filter(guard.filter());
            long started = System.nanoTime();
            CompletableFuture<Membership> answer = BloomGuardInterceptor.isBatch(key)
                    ? filter.checkAllAsync(BloomGuardInterceptor.elements(key)).thenApply(BloomGuardInterceptor::batchAnswer)
                    : filter.checkAsync(key);
            return Mono.fromFuture(answer, true)
                    .map(membership -> interceptor.decide(guard, key, membership, System.nanoTime() - started));
        });
    }

    private static Mono<Object> rejection(BloomOperations.Guard guard) {
        return guard.emptyResult() == null ? Mono.error(new BloomGuardRejectedException(guard.filter(), guard.method()))
                : Mono.empty();
    }

    private static Mono<Void> add(BloomGuardInterceptor interceptor, BloomOperations.Put put, Object target,
            Object[] arguments, Object value) {
        return Mono.defer(() -> {
            Object key = interceptor.putKey(put, target, arguments, value);
            if (key == null) {
                return Mono.<Void>empty();
            }
            List<?> keys = BloomGuardInterceptor.isBatch(key) ? BloomGuardInterceptor.elements(key) : List.of(key);
            return Mono.fromFuture(interceptor.filter(put.filter()).addAllAsync(keys), true);
        }).onErrorMap(error -> !(error instanceof dev.bloomguard.spring.BloomGuardException),
                error -> BloomGuardInterceptor.addFailed(put,
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error));
    }

    /**
     * Runs the rest of the chain and the method: once per subscription, on a clone of the
     * invocation, since a Reactor sequence may be subscribed more than once.
     */
    @SuppressWarnings("unchecked")
    private static Publisher<Object> proceed(MethodInvocation invocation) {
        try {
            MethodInvocation run = invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
            // Later advice (AspectJ's among it) reads the current invocation from this thread.
            Object result = ExposeInvocationInterceptor.INSTANCE.invoke(run);
            return result == null ? Mono.empty() : (Publisher<Object>) result;
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
    }
}
