package dev.bloomguard.test.spring;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.metrics.CheckOutcome;
import dev.bloomguard.spring.warmup.FilterWarmer;

/**
 * What a test of an application asks of bloom-guard: keys that exist ({@link #preload}), that a
 * call was rejected before its method ran ({@link #assertRejected}) or checked and let through
 * ({@link #assertPassed}), and how many checks passed, were blocked or bypassed. A bean of the
 * context under {@link AutoConfigureBloomGuardInMemory} or {@link AutoConfigureBloomGuard}:
 * {@code @Autowired BloomGuardTester bloomGuard;}. Failures are {@link AssertionError}s, so it
 * works with any test framework.
 *
 * <p>The one thing a reader could get wrong: the assertions read the context's counts while the
 * call runs, so a check made meanwhile by another thread of the same context counts too. Keep the
 * call on the test's thread, as a call to a service or a {@code MockMvc} request is.
 */
public final class BloomGuardTester {

    /** How long {@link #awaitReady(String)} waits for a filter's warmup. */
    public static final Duration DEFAULT_READY_TIMEOUT = Duration.ofSeconds(30);

    private static final long POLL_MILLIS = 10;

    private final BloomFilterRegistry registry;
    private final Supplier<FilterWarmer> warmer;
    private final Supplier<CheckCounts> counts;

    BloomGuardTester(BloomFilterRegistry registry, Supplier<FilterWarmer> warmer, Supplier<CheckCounts> counts) {
        this.registry = registry;
        this.warmer = warmer;
        this.counts = counts;
    }

    /** A call to a guarded method, as a lambda: {@code () -> users.find(42L)}. */
    @FunctionalInterface
    public interface GuardedCall {

        void call() throws Throwable;
    }

    /** As {@link #preload(String, Collection)}. */
    public void preload(String filter, Object... keys) {
        preload(filter, Arrays.asList(keys));
    }

    /**
     * Makes {@code keys} exist in {@code filter}, which then blocks keys definitely absent. A filter
     * that warms from its source at startup ({@code warmup.sql}, a key source) is waited for
     * ({@link #awaitReady}) and the keys are added to what it loaded, as {@code @BloomPut} adds them;
     * a filter nobody loaded yet is loaded with exactly these keys. Keys stay for the context's life,
     * as in production: they are never taken out again.
     *
     * @throws IllegalArgumentException when no filter has that name
     * @throws AssertionError when a filter that warms at startup is not ready in time
     */
    public void preload(String filter, Collection<?> keys) {
        RedisBloomFilter target = registry.filter(filter);
        if (warmsAtStartup(filter)) {
            awaitReady(filter);
        }
        List<?> present = keys.stream().filter(Objects::nonNull).toList();
        if (target.isReady()) {
            target.addAll(present);
        }
        else {
            target.load(present.iterator(), null, true);
        }
    }

    /** As {@link #awaitReady(String, Duration)}, for at most {@link #DEFAULT_READY_TIMEOUT}. */
    public void awaitReady(String filter) {
        awaitReady(filter, DEFAULT_READY_TIMEOUT);
    }

    /**
     * Waits until {@code filter} blocks keys definitely absent: loaded, no load of it running in this
     * context, no reason not to block held ({@link RedisBloomFilter#holds()}). Before that, every
     * check is bypassed and a test of a rejection would fail for a reason the test does not show.
     *
     * @throws AssertionError saying why, when it is not ready by {@code timeout}, or at once for a
     *     filter with no key source that nothing loaded
     */
    public void awaitReady(String filter, Duration timeout) {
        RedisBloomFilter target = registry.filter(filter);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!blocks(target)) {
            if (!target.isReady() && !hasSource(filter) && !target.isLoading()) {
                throw new AssertionError("Filter '" + filter + "' has no warmup source and was never loaded, so it"
                        + " blocks nothing: preload it (bloomGuardTester.preload(\"" + filter + "\", keys...))");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Filter '" + filter + "' does not block after " + timeout + ": " + state(target));
            }
            sleep();
        }
    }

    /**
     * Runs {@code call} and asserts that bloom-guard rejected it: the method was not invoked because
     * a filter said its key is definitely absent. Under {@code on-absent: throw} the call throws
     * {@link BloomGuardRejectedException} (also as the cause of a {@code CompletionException} or
     * {@code ExecutionException}, for a future joined); under {@code on-absent: return-empty} it
     * returns normally and a check is counted blocked.
     */
    public void assertRejected(GuardedCall call) {
        rejected(null, call);
    }

    /** As {@link #assertRejected(GuardedCall)}, by the filter named {@code filter}. */
    public void assertRejected(String filter, GuardedCall call) {
        registry.filter(filter);
        rejected(filter, call);
    }

    /**
     * Runs {@code call} and tells whether bloom-guard rejected it, as {@link #assertRejected} judges,
     * for a test that counts rejections over many keys. What else the call throws is rethrown.
     */
    public boolean rejects(GuardedCall call) {
        CheckCounts checks = counts.get();
        long blocked = checks.total(CheckOutcome.BLOCKED);
        Throwable thrown = run(call);
        if (rejection(thrown) != null) {
            return true;
        }
        if (thrown != null) {
            throw sneaky(thrown);
        }
        return checks.total(CheckOutcome.BLOCKED) > blocked;
    }

    /**
     * Runs {@code call} and asserts that bloom-guard checked it and let it through: at least one check
     * passed, none was blocked, none bypassed (a filter not loaded, which would let an absent key
     * through too, proves nothing). What the method itself throws is rethrown as it is.
     */
    public void assertPassed(GuardedCall call) {
        CheckCounts checks = counts.get();
        long passed = checks.total(CheckOutcome.PASSED);
        long blocked = checks.total(CheckOutcome.BLOCKED);
        long bypassed = checks.total(CheckOutcome.BYPASSED);
        Throwable thrown = run(call);
        BloomGuardRejectedException rejection = rejection(thrown);
        if (rejection != null) {
            throw new AssertionError("Expected the call to pass, but filter '" + rejection.getFilter() + "' rejected it",
                    rejection);
        }
        long newlyBlocked = checks.total(CheckOutcome.BLOCKED) - blocked;
        long newlyBypassed = checks.total(CheckOutcome.BYPASSED) - bypassed;
        long newlyPassed = checks.total(CheckOutcome.PASSED) - passed;
        if (newlyBlocked > 0 || newlyBypassed > 0 || newlyPassed == 0) {
            throw new AssertionError("Expected the call to be checked and passed, but its checks were: " + newlyPassed
                    + " passed, " + newlyBlocked + " blocked, " + newlyBypassed + " bypassed"
                    + (newlyBypassed > 0 ? " (a filter not ready: preload it, or awaitReady)" : "")
                    + (newlyPassed + newlyBlocked + newlyBypassed == 0 ? " (is the method @" + BloomGuard.class.getSimpleName()
                            + ", and called through its Spring bean?)" : ""), thrown);
        }
        if (thrown != null) {
            throw sneaky(thrown);
        }
    }

    /** Checks of {@code filter} that passed since the context started or {@link #resetCounts()}. */
    public long passed(String filter) {
        return count(filter, CheckOutcome.PASSED);
    }

    /** Checks of {@code filter} that blocked a call since the context started or {@link #resetCounts()}. */
    public long blocked(String filter) {
        return count(filter, CheckOutcome.BLOCKED);
    }

    /**
     * Checks of {@code filter} that could not decide (not ready, Redis failing) since the context
     * started or {@link #resetCounts()}; the call went through or was rejected by policy.
     */
    public long bypassed(String filter) {
        return count(filter, CheckOutcome.BYPASSED);
    }

    /** Sets every count to zero; the meters the application publishes are not touched. */
    public void resetCounts() {
        counts.get().reset();
    }

    /** The filter itself, for what this class does not say: {@code check}, {@code add}, {@code status}. */
    public RedisBloomFilter filter(String name) {
        return registry.filter(name);
    }

    private void rejected(String filter, GuardedCall call) {
        CheckCounts checks = counts.get();
        long blocked = filter == null ? checks.total(CheckOutcome.BLOCKED) : checks.count(filter, CheckOutcome.BLOCKED);
        long passed = checks.total(CheckOutcome.PASSED);
        long bypassed = checks.total(CheckOutcome.BYPASSED);
        Throwable thrown = run(call);
        BloomGuardRejectedException rejection = rejection(thrown);
        if (rejection != null) {
            if (filter != null && !filter.equals(rejection.getFilter())) {
                throw new AssertionError("Expected filter '" + filter + "' to reject the call, but filter '"
                        + rejection.getFilter() + "' did", rejection);
            }
            return;
        }
        if (thrown != null) {
            throw new AssertionError("Expected bloom-guard to reject the call, but it failed with " + thrown, thrown);
        }
        long newlyBlocked = (filter == null ? checks.total(CheckOutcome.BLOCKED) : checks.count(filter, CheckOutcome.BLOCKED))
                - blocked;
        if (newlyBlocked == 0) {
            throw new AssertionError("Expected bloom-guard to reject the call, but it returned normally; its checks: "
                    + (checks.total(CheckOutcome.PASSED) - passed) + " passed, "
                    + (checks.total(CheckOutcome.BYPASSED) - bypassed) + " bypassed (not ready: preload it, or awaitReady)"
                    + (filter == null ? "" : ", of any filter"));
        }
    }

    private long count(String filter, CheckOutcome outcome) {
        registry.filter(filter);
        return counts.get().count(filter, outcome);
    }

    private boolean warmsAtStartup(String filter) {
        FilterWarmer current = warmer.get();
        FilterWarmer.Task task = current == null ? null : current.tasks().get(filter);
        return task != null && task.source() != null && task.onStartup();
    }

    private boolean hasSource(String filter) {
        FilterWarmer current = warmer.get();
        FilterWarmer.Task task = current == null ? null : current.tasks().get(filter);
        return task != null && task.source() != null;
    }

    private boolean blocks(RedisBloomFilter filter) {
        FilterWarmer current = warmer.get();
        boolean warming = current != null && current.isWarming(filter.name());
        return !warming && filter.isReady() && filter.holds().isEmpty();
    }

    private String state(RedisBloomFilter filter) {
        FilterWarmer current = warmer.get();
        StringBuilder state = new StringBuilder().append("loaded=").append(filter.isReady())
                .append(", reasons not to block=").append(filter.holds());
        if (current != null) {
            state.append(", warming=").append(current.isWarming(filter.name()));
            current.lastFailure(filter.name()).ifPresent(failure -> state.append(", last warmup failed: ")
                    .append(failure.reason()));
        }
        return state.toString();
    }

    private static Throwable run(GuardedCall call) {
        try {
            call.call();
            return null;
        }
        catch (Throwable thrown) {
            return thrown;
        }
    }

    private static BloomGuardRejectedException rejection(Throwable thrown) {
        Throwable current = thrown;
        while (current instanceof CompletionException || current instanceof ExecutionException) {
            current = current.getCause();
        }
        return current instanceof BloomGuardRejectedException rejected ? rejected : null;
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL_MILLIS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for a filter to be ready", ex);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable thrown) throws T {
        throw (T) thrown;
    }
}
