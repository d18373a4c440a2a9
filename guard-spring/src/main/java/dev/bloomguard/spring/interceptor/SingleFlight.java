package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import org.aopalliance.intercept.MethodInvocation;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code bloom-guard.filters.<name>.single-flight}: concurrent calls of one guarded method, on
 * one bean, with equal arguments, that passed the filter, share one call of the method on this
 * instance, as {@code @Cacheable(sync = true)} does: the first runs it, the others wait for its
 * result (the same object) or its exception (the same instance). A burst for one key, such as an
 * attacker repeating a false positive, costs one query.
 *
 * <p>A caller must never see less than it would have seen alone, so a call joins no flight
 * <ul>
 *   <li>inside a transaction, which may read its own uncommitted rows, nor leads one (its result
 *       could hold rows no other caller may see yet); nor on a thread holding a bound resource,
 *       such as Open Session in View's {@code EntityManager}, whose entities belong to it;</li>
 *   <li>that started before a {@code @BloomPut} to the same filter on this instance: the flight's
 *       query may have run before the row was written.</li>
 * </ul>
 * A flight that started before a write on another instance can still answer a caller that came
 * after it: by at most one call's duration, as two overlapping calls would. Arguments are all a
 * flight compares: a method whose result depends on who calls (the security principal, a tenant
 * held in a thread local) must take that as an argument, or not use single flight.
 */
final class SingleFlight {

    private final Map<Call, Flight> flights = new ConcurrentHashMap<>();
    /** Per filter, the {@code @BloomPut}s this instance began: a flight is joinable while unchanged. */
    private final Map<String, AtomicLong> writes = new ConcurrentHashMap<>();

    /** The call a flight makes: the method, and whatever must be done before its followers see the result. */
    @FunctionalInterface
    interface Body {
        Object call() throws Throwable;
    }

    Object run(String filter, MethodInvocation invocation) throws Throwable {
        return run(filter, invocation, invocation::proceed);
    }

    /** As {@link #run(String, MethodInvocation)}, the flight's leader running {@code body} instead of the bare method. */
    Object run(String filter, MethodInvocation invocation, Body body) throws Throwable {
        if (TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.getResourceMap().isEmpty()) {
            // A transaction may read its own uncommitted rows; a bound resource (Open Session in View's
            // EntityManager, a connection) makes the result belong to this thread's session.
            return body.call();
        }
        Call call = new Call(invocation.getMethod(), invocation.getThis(), invocation.getArguments());
        Flight mine = new Flight(writes(filter).get());
        Flight running = flights.putIfAbsent(call, mine);
        if (running != null) {
            if (running.writes == mine.writes) {
                return running.await();
            }
            if (!flights.replace(call, running, mine)) {
                return body.call();
            }
        }
        try {
            Object result = body.call();
            mine.result.complete(result);
            return result;
        }
        catch (Throwable ex) {
            mine.result.completeExceptionally(ex);
            throw ex;
        }
        finally {
            flights.remove(call, mine);
        }
    }

    /**
     * Called as a {@code @BloomPut} method for {@code filter} begins and as it adds its key; and,
     * inside a transaction, once more when it completes: a flight that started before the row was
     * committed is joined by no caller that started after.
     */
    void writing(String filter) {
        AtomicLong writes = writes(filter);
        writes.incrementAndGet();
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public int getOrder() {
                    return Ordered.HIGHEST_PRECEDENCE;
                }

                /** Before any other after-commit work (an event sent after commit) can wake a reader. */
                @Override
                public void afterCommit() {
                    writes.incrementAndGet();
                }

                @Override
                public void afterCompletion(int status) {
                    writes.incrementAndGet();
                }
            });
        }
    }

    /** A write to {@code filter} ended (a reactive transaction's commit or rollback): as {@link #writing} does after a commit. */
    void written(String filter) {
        writes(filter).incrementAndGet();
    }

    private AtomicLong writes(String filter) {
        return writes.computeIfAbsent(filter, name -> new AtomicLong());
    }

    /** One method on one bean (by identity) with equal arguments. */
    private static final class Call {

        private final Method method;
        private final Object target;
        private final Object[] arguments;
        private final int hash;

        Call(Method method, Object target, Object[] arguments) {
            this.method = method;
            this.target = target;
            this.arguments = arguments.clone();
            this.hash = 31 * (31 * method.hashCode() + System.identityHashCode(target)) + Arrays.hashCode(this.arguments);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Call call && call.method.equals(method) && call.target == target
                    && Arrays.equals(call.arguments, arguments);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static final class Flight {

        final long writes;
        final CompletableFuture<Object> result = new CompletableFuture<>();

        Flight(long writes) {
            this.writes = writes;
        }

        /** The leader's result, or its exception rethrown as it was thrown. */
        Object await() throws Throwable {
            try {
                return result.get();
            }
            catch (ExecutionException ex) {
                throw ex.getCause();
            }
            catch (CancellationException ex) {
                throw new IllegalStateException("the call this one waited for was cancelled", ex);
            }
        }
    }
}
