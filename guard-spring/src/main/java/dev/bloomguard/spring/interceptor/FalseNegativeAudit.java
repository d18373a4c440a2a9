package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Array;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.upkeep.RetriedAdds;
import dev.bloomguard.spring.metrics.AuditResult;

/**
 * The audit of a filter's blocks in production ({@code bloom-guard.filters.<name>.audit.*}): a
 * sample of the calls the guard blocked is looked up again, by running the rest of the call's
 * chain and the method once more, in the background, after the caller has its answer. A lookup
 * that finds what it looked up is a false negative, a key that exists refused: it is counted
 * ({@code bloomguard.false-negatives}), told in a WARN without the key, the key is added at once
 * (a refused add goes to the retries, which hold the filter until it lands) and a rebuild of the
 * filter is asked for, at most once per {@code audit.rebuild-cooldown}.
 *
 * <p>Bounded: one daemon thread and a queue of {@value #QUEUE} lookups; a lookup that finds the
 * queue full is dropped and counted as such. A reactive or asynchronous method's value is
 * awaited for at most {@link #LOOKUP_TIMEOUT}. Whether a call is sampled is decided with the
 * check ({@link #sampled}), so that a filter that does not audit costs nothing per call.
 */
final class FalseNegativeAudit implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardInterceptor.class);

    static final int QUEUE = 64;
    static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(30);

    private final GuardDependencies dependencies;
    private final BloomOperationSource.FilterCatalog catalog;
    private final RetriedAdds retriedAdds;
    private final Function<RedisBloomFilter, CompletableFuture<?>> rebuild;
    private final Map<String, Double> rates = new ConcurrentHashMap<>();
    /** Per filter, when the audit last asked for a rebuild (nanoTime), absent before the first. */
    private final Map<String, AtomicLong> rebuildsAsked = new ConcurrentHashMap<>();
    private volatile ThreadPoolExecutor executor;

    FalseNegativeAudit(GuardDependencies dependencies, BloomOperationSource.FilterCatalog catalog,
            RetriedAdds retriedAdds, Function<RedisBloomFilter, CompletableFuture<?>> rebuild) {
        this.dependencies = dependencies;
        this.catalog = catalog;
        this.retriedAdds = retriedAdds;
        this.rebuild = rebuild;
    }

    /** Whether this blocked call of {@code filter} is one the audit looks up again. */
    boolean sampled(String filter) {
        double rate = rates.computeIfAbsent(filter, catalog::auditSampleRate);
        return rate > 0 && (rate >= 1 || ThreadLocalRandom.current().nextDouble() < rate);
    }

    /**
     * Looks the blocked call up again in the background: {@code invocation} has not proceeded
     * (it was blocked), so a clone of it runs the rest of the chain and the method once.
     */
    void lookUp(BloomOperations.Guard guard, Object key, MethodInvocation invocation, ReturnKind.Kind kind) {
        if (!(invocation instanceof ProxyMethodInvocation proxied)) {
            return;
        }
        MethodInvocation again = proxied.invocableClone();
        try {
            executor().execute(() -> audit(guard, key, again, kind));
        }
        catch (RejectedExecutionException full) {
            dependencies.metrics().recordAudit(guard.filter(), AuditResult.DROPPED);
        }
    }

    private void audit(BloomOperations.Guard guard, Object key, MethodInvocation again, ReturnKind.Kind kind) {
        AuditResult result;
        try {
            result = found(value(again.proceed(), kind)) ? AuditResult.FOUND : AuditResult.NOT_FOUND;
        }
        catch (Throwable ex) {
            Throwable cause = ex instanceof ExecutionException && ex.getCause() != null ? ex.getCause() : ex;
            result = guard.meansNotFound(cause) ? AuditResult.NOT_FOUND : AuditResult.FAILED;
            if (result == AuditResult.FAILED) {
                log.debug("Filter '{}': the audit's lookup of a blocked call of {} failed: {}", guard.filter(),
                        guard.method(), cause.getClass().getName(), WithheldMessages.of(cause));
            }
        }
        if (result == AuditResult.FOUND) {
            repair(guard, key); // first: once counted, the key passes
        }
        dependencies.metrics().recordAudit(guard.filter(), result);
    }

    /** The method's value: awaited for an asynchronous or reactive method (its first value). */
    private static Object value(Object returned, ReturnKind.Kind kind) throws Exception {
        if (returned == null) {
            return null;
        }
        if (kind == ReturnKind.Kind.STAGE && returned instanceof CompletionStage<?> stage) {
            return stage.toCompletableFuture().get(LOOKUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        if (kind == ReturnKind.Kind.REACTIVE && returned instanceof Publisher<?> publisher) {
            return ReactiveCalls.firstValue(publisher).get(LOOKUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        return returned;
    }

    /**
     * Whether a lookup found something: not null, nor an empty {@code Optional}, collection, map or
     * array. An empty collection is taken as nothing found, so that the audit never cries wolf
     * over a user's empty list of orders; it then misses a false negative of such a method, never
     * reports one that is not.
     */
    static boolean found(Object value) {
        if (value == null) {
            return false;
        }
        if (value instanceof Optional<?> optional) {
            return optional.isPresent();
        }
        if (value instanceof Collection<?> collection) {
            return !collection.isEmpty();
        }
        if (value instanceof Map<?, ?> map) {
            return !map.isEmpty();
        }
        return !value.getClass().isArray() || Array.getLength(value) > 0;
    }

    private void repair(BloomOperations.Guard guard, Object key) {
        RedisBloomFilter filter = guard.target().in(dependencies);
        List<Object> keys = List.of(key);
        boolean added;
        try {
            filter.addAll(keys);
            added = true;
        }
        catch (RuntimeException ex) {
            retriedAdds.retry(filter, keys);
            added = false;
        }
        boolean rebuilding = askRebuild(guard.filter(), filter);
        log.warn("Filter '{}': the audit found what {} looked up for a key the filter had blocked: a false negative,"
                + " a real key refused (bloomguard.false-negatives). The key {}; {}", guard.filter(), guard.method(),
                added ? "is added back" : "could not be added now and is retried",
                rebuilding ? "a rebuild of the filter is asked for"
                        : "a rebuild was asked for less than audit.rebuild-cooldown ago");
    }

    private boolean askRebuild(String name, RedisBloomFilter filter) {
        long now = System.nanoTime();
        long cooldown = catalog.auditRebuildCooldown(name).toNanos();
        AtomicLong last = rebuildsAsked.computeIfAbsent(name, ignored -> new AtomicLong(now - cooldown - 1));
        long previous = last.get();
        if (now - previous <= cooldown || !last.compareAndSet(previous, now)) {
            return false;
        }
        try {
            rebuild.apply(filter).whenComplete((ignored, error) -> {
                if (error != null) {
                    log.warn("Filter '{}': the rebuild the audit asked for failed: {}", name, error.toString());
                }
            });
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not ask for the rebuild the audit found due: {}", name, ex.toString());
        }
        return true;
    }

    private ThreadPoolExecutor executor() {
        ThreadPoolExecutor current = executor;
        if (current == null) {
            synchronized (this) {
                current = executor;
                if (current == null) {
                    current = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE),
                            runnable -> {
                                Thread thread = new Thread(runnable, "bloomguard-audit");
                                thread.setDaemon(true);
                                return thread;
                            }, new ThreadPoolExecutor.AbortPolicy());
                    executor = current;
                }
            }
        }
        return current;
    }

    @Override
    public void close() {
        ThreadPoolExecutor current = executor;
        if (current != null) {
            current.shutdownNow();
        }
    }
}
