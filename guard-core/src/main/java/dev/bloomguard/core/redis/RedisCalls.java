package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.channel.EventLoopGroup;

/**
 * The one execution path of every Redis call a {@link LettuceBitmapStore} makes, blocking or not:
 * the {@link CircuitBreaker} first, then the connection (the shared one, obtained in the
 * background so that a caller waits at most its own timeout for it, or one borrowed from a pool),
 * then the replies awaited within one deadline, and every failure classified the same way: a
 * timeout or a lost connection counts against the breaker, an error reply ({@code OOM},
 * {@code READONLY}, {@code LOADING}) does not, since Redis answered, and quickly. Scripts go
 * through {@link ScriptCalls}.
 *
 * <p>A deadline counts the process's running time, not the wall clock's: time the process spent
 * paused ({@link InstancePauses}: stopped, collecting garbage, starved of CPU) while a call was
 * in flight is added to its deadline, up to {@link CallDeadline#MAX_PAUSE_ALLOWANCE}, and a reply that
 * arrived meanwhile is taken, not cancelled. So a stalled instance neither fails its checks open
 * nor opens the breaker: both measure Redis. A call on a Redis that does not answer still fails
 * after its timeout of running time, as before.
 *
 * <p>Size (just over 300 lines): the blocking and the asynchronous forms of one call path, kept
 * side by side so that they classify failures the same way; the deadline is {@link CallDeadline}.
 */
final class RedisCalls {

    /**
     * Runs what must not run on a Redis I/O thread or the JDK's one timeout thread: blocking calls
     * for asynchronous callers when there is no shared connection to write to, and the completion
     * of timed-out asynchronous calls, whose callers' continuations would otherwise delay every
     * other timeout in the JVM.
     */
    private static final Executor WORKERS = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "bloomguard-redis-worker");
        thread.setDaemon(true);
        return thread;
    });

    private final LettuceConnections connections;
    private final CircuitBreaker breaker;
    private final InstancePauses pauses = InstancePauses.shared();
    /**
     * Whether the connections' event loops are measured (once found, they are the client's for
     * good), or how many calls looked for them in vain: a few, not every call, when they cannot be found.
     */
    private volatile boolean loopsWatched;
    private volatile int loopSearches;
    private final Executor connector;
    private final AtomicReference<CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>>> sharedConnection =
            new AtomicReference<>();

    /** @param connections where connections come from; never closed here, their owner does */
    RedisCalls(LettuceConnections connections, CircuitBreaker breaker) {
        this.connections = connections;
        this.breaker = breaker;
        this.connector = runnable -> {
            Thread thread = new Thread(runnable, "bloomguard-redis-connect");
            thread.setDaemon(true);
            thread.start();
        };
    }

    CircuitBreaker.State circuitState() {
        return breaker.state();
    }

    /**
     * Sends the commands {@code send} dispatches and waits for all their replies, the last
     * reply being the result. Timeouts and connection failures count against the circuit
     * breaker; an error reply ({@code OOM}, {@code READONLY}, {@code LOADING}) does not, since
     * Redis answered, and quickly.
     */
    @SuppressWarnings("unchecked")
    <T> T call(String name, Duration timeout,
            Function<RedisClusterAsyncCommands<byte[], byte[]>, List<? extends RedisFuture<?>>> send) {
        if (!breaker.tryAcquire()) {
            throw new BitmapStoreException(name + " not sent: the circuit to Redis is open after failures in a row or too many failed or slow calls", null);
        }
        CallDeadline deadline = new CallDeadline(pauses, timeout);
        try {
            T result = withCommands(timeout, commands -> {
                deadline.sentOn(connectionOf(commands));
                Object last = null;
                for (RedisFuture<?> reply : send.apply(commands)) {
                    last = await(reply, deadline, timeout, name);
                }
                return (T) last;
            });
            breaker.onSuccess(deadline.runningNanos(System.nanoTime()));
            return result;
        }
        catch (BitmapStoreException ex) {
            if (ex.getCause() instanceof RedisCommandExecutionException) {
                breaker.onSuccess(deadline.runningNanos(System.nanoTime()));
            }
            else {
                breaker.onFailure();
            }
            throw ex;
        }
        catch (RuntimeException ex) {
            breaker.onFailure();
            throw new BitmapStoreException(name + " failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * {@link #call} without blocking the calling thread: the commands are written once the
     * shared connection is there, and the result completes on Lettuce's I/O thread, or with a
     * {@link BitmapStoreException} at {@code timeout}. The circuit breaker counts as for {@link #call}.
     * Without a shared native connection (a pooled configuration) there is no connection to
     * write to without blocking, so the blocking call runs on a worker thread instead.
     */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> callAsync(String name, Duration timeout,
            Function<RedisClusterAsyncCommands<byte[], byte[]>, List<? extends RedisFuture<?>>> send) {
        if (!connections.isShared()) {
            CompletableFuture<T> pooled = CompletableFuture.<T>supplyAsync(() -> call(name, timeout, send), WORKERS);
            new CallDeadline(pauses, timeout).watch(pooled);
            return pooled.exceptionallyComposeAsync(error -> CompletableFuture.failedFuture(unwrap(error) instanceof TimeoutException
                    ? new BitmapStoreException(name + " did not answer within " + timeout, unwrap(error)) : unwrap(error)),
                    WORKERS);
        }
        if (!breaker.tryAcquire()) {
            return CompletableFuture.failedFuture(
                    new BitmapStoreException(name + " not sent: the circuit to Redis is open after failures in a row or too many failed or slow calls", null));
        }
        CallDeadline deadline = new CallDeadline(pauses, timeout);
        AtomicReference<List<? extends RedisFuture<?>>> sent = new AtomicReference<>(List.of());
        CompletableFuture<T> replies = sharedConnection().thenCompose(commands -> {
            deadline.sentOn(connectionOf(commands));
            List<? extends RedisFuture<?>> futures = send.apply(watched(commands));
            sent.set(futures);
            if (futures.size() == 1) {
                return (CompletableFuture<T>) futures.get(0).toCompletableFuture();
            }
            CompletableFuture<?>[] all = futures.stream().map(RedisFuture::toCompletableFuture)
                    .toArray(CompletableFuture[]::new);
            return CompletableFuture.allOf(all).thenApply(done -> (T) all[all.length - 1].join());
        });
        deadline.watch(replies);
        CompletableFuture<T> result = new CompletableFuture<>();
        replies.whenComplete((value, error) -> {
            if (error == null) {
                breaker.onSuccess(deadline.runningNanos(System.nanoTime()));
                result.complete(value);
                return;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof RedisCommandExecutionException) {
                breaker.onSuccess(deadline.runningNanos(System.nanoTime()));
                result.completeExceptionally(new BitmapStoreException(name + " failed: " + cause.getMessage(), cause));
                return;
            }
            breaker.onFailure();
            if (cause instanceof TimeoutException) {
                sent.get().forEach(reply -> reply.cancel(false));
                WORKERS.execute(() -> result.completeExceptionally(
                        new BitmapStoreException(name + " did not answer within " + timeout, cause)));
            }
            else {
                result.completeExceptionally(new BitmapStoreException(name + " failed: " + cause.getMessage(), cause));
            }
        });
        return result;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause()
                : error;
    }

    private <T> T withCommands(Duration timeout, Function<RedisClusterAsyncCommands<byte[], byte[]>, T> work) {
        if (connections.isShared()) {
            return work.apply(sharedCommands(timeout));
        }
        LettuceConnections.Lease lease;
        try {
            lease = connections.borrow();
        }
        catch (RuntimeException ex) {
            throw new BitmapStoreException("no Redis connection: " + ex.getMessage(), ex);
        }
        try {
            return work.apply(watched(lease.commands()));
        }
        finally {
            giveBack(lease);
        }
    }

    /**
     * The shared native connection, obtained once on a background thread: while Redis is
     * unreachable the first connect can take the whole connect timeout, and no caller should
     * wait longer than its own timeout for it. A closed connection is obtained afresh.
     */
    private RedisClusterAsyncCommands<byte[], byte[]> sharedCommands(Duration timeout) {
        try {
            return watched(sharedConnection().get(timeout.toNanos(), TimeUnit.NANOSECONDS));
        }
        catch (TimeoutException ex) {
            throw new BitmapStoreException("no Redis connection within " + timeout, ex);
        }
        catch (ExecutionException ex) {
            throw new BitmapStoreException("no Redis connection: " + ex.getCause().getMessage(), ex.getCause());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new BitmapStoreException("interrupted while connecting to Redis", ex);
        }
    }

    /**
     * {@code commands}, whose connection's I/O event loops the pause meter measures from the first
     * call on: a reply read late because that loop was busy or starved is the process's delay, not Redis's.
     */
    private RedisClusterAsyncCommands<byte[], byte[]> watched(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        if (!loopsWatched && loopSearches < 16) {
            loopSearches++;
            EventLoopGroup loops = EventLoops.of(commands);
            if (loops != null) {
                pauses.watch(loops);
                loopsWatched = true;
            }
        }
        return commands;
    }

    /** The shared connection as it stands: done once connected; a failed or closed one is replaced by a fresh attempt. */
    private CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> sharedConnection() {
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> current = sharedConnection.get();
        if (current == null || current.isCompletedExceptionally() || (current.isDone() && closedForGood(current.join()))) {
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> fresh = new CompletableFuture<>();
            if (sharedConnection.compareAndSet(current, fresh)) {
                connector.execute(() -> {
                    try {
                        fresh.complete(connections.shared());
                    }
                    catch (RuntimeException ex) {
                        fresh.completeExceptionally(ex);
                    }
                });
            }
            current = sharedConnection.get();
        }
        return current;
    }

    /** True for a connection its owner has closed (reset or shut down), false for one that is merely reconnecting. */
    private static boolean closedForGood(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        RedisChannelHandler<?, ?> connection = connectionOf(commands);
        return connection != null && connection.isClosed();
    }

    /** The connection {@code commands} are written to, or null for a kind of commands not known here. */
    private static RedisChannelHandler<?, ?> connectionOf(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        Object connection = commands instanceof RedisAsyncCommands<byte[], byte[]> standalone
                ? standalone.getStatefulConnection()
                : commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster
                        ? cluster.getStatefulConnection() : null;
        return connection instanceof RedisChannelHandler<?, ?> handler ? handler : null;
    }

    private static void giveBack(LettuceConnections.Lease lease) {
        try {
            lease.close();
        }
        catch (Exception ex) {
            throw new BitmapStoreException("could not give back a Redis connection: " + ex.getMessage(), ex);
        }
    }

    /**
     * The reply, once it came; at the deadline, a reply already there is taken rather than
     * cancelled, and the wait goes on for as long as the process was paused meanwhile.
     */
    private static Object await(RedisFuture<?> reply, CallDeadline deadline, Duration timeout, String name) {
        try {
            while (true) {
                try {
                    return reply.get(Math.max(0, deadline.remainingNanos(System.nanoTime())), TimeUnit.NANOSECONDS);
                }
                catch (TimeoutException ex) {
                    if (deadline.passed(System.nanoTime())) {
                        reply.cancel(false);
                        throw new BitmapStoreException(name + " did not answer within " + timeout, ex);
                    }
                }
            }
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() == null ? ex : ex.getCause();
            throw new BitmapStoreException(name + " failed: " + cause.getMessage(), cause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            reply.cancel(false);
            throw new BitmapStoreException(name + " was interrupted", ex);
        }
    }
}
