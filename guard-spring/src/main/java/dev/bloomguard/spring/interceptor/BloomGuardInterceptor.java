package dev.bloomguard.spring.interceptor;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.upkeep.RetriedAdds;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardConfigurationException;
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
 * <p>As Spring's {@code CacheInterceptor} over {@code CacheAspectSupport}, this is only the
 * advice: it finds the call's operations and hands the call to the handler of its return kind
 * ({@link PlainCalls}, {@link StageCalls}, {@link ReactiveCalls}), which run it over the
 * aspect-agnostic {@link GuardChecks}, {@link MissRecorder} and {@link KeyAdds}. Their
 * log lines keep this class's name.
 */
public final class BloomGuardInterceptor implements MethodInterceptor {

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
    private final GuardDependencies dependencies;
    private final RetriedAdds retriedAdds;
    private final SingleFlight flights = new SingleFlight();
    private final GuardChecks checks;
    private final MissRecorder misses;
    private final KeyAdds adds;
    private final FalseNegativeAudit audit;

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
     *        for a retry, or when the audit found a key it blocked; the future completes once the
     *        load is live
     */
    public BloomGuardInterceptor(BloomOperationSource source, Supplier<BloomFilterRegistry> registry,
            Supplier<GuardMetrics> metrics, Supplier<GuardObservations> observations, boolean blockWhenUnavailable,
            Function<RedisBloomFilter, CompletableFuture<?>> rewarm) {
        this.source = source;
        this.dependencies = new GuardDependencies(registry, metrics, observations);
        this.retriedAdds = RetriedAdds.builder(rewarm).firstDelay(RETRY_FIRST_DELAY).maxDelay(RETRY_MAX_DELAY)
                .giveUpAfter(RETRY_GIVE_UP_AFTER).capacity(RETRY_CAPACITY).build();
        this.audit = new FalseNegativeAudit(dependencies, source.catalog(), retriedAdds, rewarm);
        this.checks = new GuardChecks(dependencies, blockWhenUnavailable, audit,
                new BypassBudgets(source.catalog()));
        this.misses = new MissRecorder(dependencies);
        this.adds = new KeyAdds(dependencies, retriedAdds, flights);
    }

    /** Stops retrying refused adds; called when the application context closes. */
    public void close() {
        retriedAdds.close();
        audit.close();
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
        return switch (operations.returns().kind()) {
            case STAGE -> StageCalls.invoke(checks, misses, adds, invocation, operations);
            case REACTIVE -> ReactiveCalls.invoke(checks, misses, adds, invocation, operations);
            case PLAIN -> PlainCalls.invoke(checks, misses, adds, flights, invocation, operations);
        };
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
            PlainCalls.add(adds, operations.put(), target, invocation.getArguments(), result);
        }
        else if (operations.returns().kind() == ReturnKind.Kind.REACTIVE) {
            // Each value is added before it goes on, so before a reactive transaction around this
            // advice (the method's own) completes and commits: a refused add rolls the row back.
            // The guard's advice learns of it from the subscriber's context, not from this thread.
            return ReactiveCalls.addingEach(adds, operations, target, invocation.getArguments(), result);
        }
        return result;
    }

    /**
     * @throws BloomGuardConfigurationException when there are no filters to guard with
     */
    void resolveDependencies() {
        dependencies.resolve();
    }
}
