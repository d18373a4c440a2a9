package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.expression.EvaluationException;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.metrics.CheckOutcome;
import dev.bloomguard.spring.metrics.GuardMetrics;

/**
 * Runs the check of {@code @BloomGuard} before the method and the add of {@code @BloomPut}
 * after it. Per call it does only what depends on the call: resolve the key from the
 * arguments, ask the filter once, count the outcome.
 *
 * <p>Only an {@link Membership#ABSENT} answer rejects a call (and, by policy, an unreachable
 * Redis); a filter that cannot tell always lets the call through.
 */
public final class BloomGuardInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardInterceptor.class);

    private final BloomOperationSource source;
    private final Supplier<BloomFilterRegistry> registry;
    private final Supplier<GuardMetrics> metrics;
    private final boolean blockWhenUnavailable;
    private volatile BloomFilterRegistry resolvedRegistry;
    private volatile GuardMetrics resolvedMetrics;

    /**
     * @param registry resolved on first use, so creating the advisor does not create Redis connections early
     * @param metrics resolved on first use, for the same reason
     * @param blockWhenUnavailable {@code on-redis-failure: block}
     */
    public BloomGuardInterceptor(BloomOperationSource source, Supplier<BloomFilterRegistry> registry,
            Supplier<GuardMetrics> metrics, boolean blockWhenUnavailable) {
        this.source = source;
        this.registry = registry;
        this.metrics = metrics;
        this.blockWhenUnavailable = blockWhenUnavailable;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopUtils.getTargetClass(target);
        BloomOperations operations = source.get(invocation.getMethod(), targetClass);
        if (operations == null) {
            return invocation.proceed();
        }
        if (operations.shape() != BloomOperations.Shape.PLAIN) {
            return ReactiveCalls.invoke(this, invocation, operations);
        }
        Object[] arguments = invocation.getArguments();
        BloomOperations.Guard guard = operations.guard();
        if (guard != null && !admits(guard, target, arguments)) {
            if (guard.emptyResult() == null) {
                throw new BloomGuardRejectedException(guard.filter(), guard.method());
            }
            return guard.emptyResult().get();
        }
        Object result = invocation.proceed();
        if (operations.put() != null) {
            add(operations.put(), target, arguments, result);
        }
        return result;
    }

    private boolean admits(BloomOperations.Guard guard, Object target, Object[] arguments) {
        Object key = guardKey(guard, target, arguments);
        if (key == null) {
            return true;
        }
        RedisBloomFilter filter = filter(guard.filter());
        long started = System.nanoTime();
        Membership answer = isBatch(key) ? batchAnswer(filter.checkAll(elements(key))) : filter.check(key);
        return decide(guard, key, answer, System.nanoTime() - started);
    }

    /** The key {@code guard} checks for this call, or null to let it through unchecked. */
    Object guardKey(BloomOperations.Guard guard, Object target, Object[] arguments) {
        return resolve(guard.key(), target, arguments, null, guard.method(), guard.filter());
    }

    /** The key {@code put} adds for this call's {@code result}, or null to add nothing. */
    Object putKey(BloomOperations.Put put, Object target, Object[] arguments, Object result) {
        return resolve(put.key(), target, arguments, result, put.method(), put.filter());
    }

    RedisBloomFilter filter(String name) {
        return registry().filter(name);
    }

    /** Counts the filter's answer and says whether the call may go on. */
    boolean decide(BloomOperations.Guard guard, Object key, Membership answer, long elapsedNanos) {
        CheckOutcome outcome = switch (answer) {
            case PRESENT -> CheckOutcome.PASSED;
            case ABSENT -> CheckOutcome.BLOCKED;
            case NOT_READY, UNAVAILABLE -> CheckOutcome.BYPASSED;
        };
        metrics().record(guard.filter(), outcome, elapsedNanos);
        if (answer == Membership.ABSENT) {
            log.debug("Filter '{}' rejected key {} for {}", guard.filter(), key, guard.method());
            return false;
        }
        return !(answer == Membership.UNAVAILABLE && blockWhenUnavailable);
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
        Object key = putKey(put, target, arguments, result);
        if (key == null) {
            return;
        }
        RedisBloomFilter filter = filter(put.filter());
        try {
            if (isBatch(key)) {
                filter.addAll(elements(key));
            }
            else {
                filter.add(key);
            }
        }
        catch (BitmapStoreException ex) {
            throw addFailed(put, ex);
        }
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
        catch (EvaluationException ex) {
            throw new BloomGuardException("Key expression of " + method + " (filter '" + filter
                    + "') failed: " + ex.getMessage(), ex);
        }
    }

    static boolean isBatch(Object key) {
        return key instanceof Collection<?> || (key.getClass().isArray() && !(key instanceof byte[]));
    }

    static List<Object> elements(Object key) {
        if (key instanceof Collection<?> collection) {
            return new ArrayList<>(collection);
        }
        int length = Array.getLength(key);
        List<Object> elements = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            elements.add(Array.get(key, i));
        }
        return elements;
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
                    + " which need a Lettuce RedisConnectionFactory (spring-boot-starter-data-redis and spring.data.redis.*): "
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

    private GuardMetrics metrics() {
        GuardMetrics current = resolvedMetrics;
        if (current == null) {
            current = metrics.get();
            resolvedMetrics = current;
        }
        return current;
    }
}
