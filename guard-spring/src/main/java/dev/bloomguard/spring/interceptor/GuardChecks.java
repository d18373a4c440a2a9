package dev.bloomguard.spring.interceptor;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.check.Verdict;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardShedException;
import dev.bloomguard.spring.metrics.CheckOutcome;
import dev.bloomguard.spring.metrics.CheckReason;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.GuardObservations;

/**
 * The check of {@code @BloomGuard}, blocking or not: the call's key, one question to the filter
 * (and, for a key it passed, whether it is a remembered miss), then the {@link Admission} with
 * its outcome and reason counted in {@link GuardMetrics} and its observation stopped. Knows
 * nothing of the call itself, so every return kind's handler shares it.
 *
 * <p>Only an {@link Membership#isAbsent absent} answer rejects a call (and, by policy, an
 * unreachable Redis); a filter that cannot tell lets the call through, within the filter's bypass
 * budget ({@link BypassBudgets}), and sheds it beyond: a shed call is no rejection, it says nothing
 * of the key. Whether a key is
 * absent, or a remembered miss that blocks, is the core's {@link Verdict} alone, which weighs
 * every reason not to block (a refused add of this instance still being retried among them);
 * nothing here turns an answer into "absent". Logs under
 * {@link BloomGuardInterceptor}'s name, the category the documentation gives for rejected keys.
 */
final class GuardChecks {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardInterceptor.class);

    /** What a shed call tells its caller to wait: the budget refills a second's worth per second. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final GuardDependencies dependencies;
    private final boolean blockWhenUnavailable;
    private final FalseNegativeAudit audit;
    private final BypassBudgets budgets;

    /**
     * @param blockWhenUnavailable {@code on-redis-failure: block}
     * @param audit samples blocked calls to look up again
     * @param budgets bound the calls that go through while a filter cannot answer
     */
    GuardChecks(GuardDependencies dependencies, boolean blockWhenUnavailable, FalseNegativeAudit audit,
            BypassBudgets budgets) {
        this.dependencies = dependencies;
        this.blockWhenUnavailable = blockWhenUnavailable;
        this.audit = audit;
        this.budgets = budgets;
        LoggedKeys.prepare();
    }

    /** Whether the call may go on, blocking the calling thread for the filter's answer. */
    Admission admits(BloomOperations.Guard guard, Object target, Object[] arguments) {
        Object key = CallKeys.guardKey(guard, target, arguments);
        if (key == null) {
            return Admission.ADMITTED;
        }
        RedisBloomFilter filter = guard.target().in(dependencies);
        GuardObservations.Pending observation = dependencies.observations().check(guard.filter());
        long started = System.nanoTime();
        Membership answer;
        try {
            answer = key instanceof List<?> batch ? Verdict.ofBatch(filter.checkAll(batch)) : filter.check(key);
        }
        catch (IllegalArgumentException ex) {
            throw GuardDependencies.failed(observation,
                    Keys.unhashable(ex, CallKeys.GUARD, guard.method(), guard.filter()));
        }
        catch (RuntimeException ex) {
            throw GuardDependencies.failed(observation, ex);
        }
        boolean remembered = answer == Membership.PRESENT && remembersMisses(guard, key)
                && filter.isRememberedMissAsync(key, guard.misses().scope()).join();
        return decide(guard, key, answer, remembered, started, observation);
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
        Object key = CallKeys.guardKey(guard, target, arguments);
        if (key == null) {
            return CompletableFuture.completedFuture(Admission.ADMITTED);
        }
        RedisBloomFilter filter = guard.target().in(dependencies);
        GuardObservations.Pending observation = dependencies.observations().check(guard.filter());
        long started = System.nanoTime();
        CompletableFuture<Membership> answer;
        try {
            answer = key instanceof List<?> batch
                    ? filter.checkAllAsync(batch).thenApply(Verdict::ofBatch)
                    : filter.checkAsync(key);
        }
        catch (IllegalArgumentException ex) {
            throw GuardDependencies.failed(observation,
                    Keys.unhashable(ex, CallKeys.GUARD, guard.method(), guard.filter()));
        }
        if (observation != GuardObservations.Pending.NONE) {
            // Only when observed: the extra stage is an allocation per call.
            answer = answer.whenComplete((membership, error) -> {
                if (error != null) {
                    observation.stop(GuardDependencies.FAILED, error);
                }
            });
        }
        if (!remembersMisses(guard, key)) {
            return answer.thenApply(membership -> decide(guard, key, membership, false, started, observation));
        }
        return answer.thenCompose(membership -> membership != Membership.PRESENT
                ? CompletableFuture.completedFuture(decide(guard, key, membership, false, started, observation))
                : filter.isRememberedMissAsync(key, guard.misses().scope())
                        .thenApply(remembered -> decide(guard, key, membership, remembered, started, observation)));
    }

    /**
     * Whether the key of a call that {@code admission} let through has been remembered as a miss
     * since its check, by a call that ran the method meanwhile: the check counted it passed; it is
     * blocked now and counted so, without a second query.
     */
    boolean rememberedSinceCheck(BloomOperations.Guard guard, Admission admission) {
        if (guard.target().in(dependencies).isRememberedMissAsync(admission.missKey(), guard.misses().scope())
                .join()) {
            dependencies.metrics().record(guard.filter(), CheckOutcome.BLOCKED, CheckReason.REMEMBERED, -1);
            return true;
        }
        return false;
    }

    /**
     * For a rejected call the audit sampled ({@link Admission#auditKey}), has the call looked up
     * again in the background; the caller already has its answer.
     */
    void audit(BloomOperations.Guard guard, Admission admission, MethodInvocation invocation, ReturnKind.Kind kind) {
        if (admission.auditKey() != null) {
            audit.lookUp(guard, admission.auditKey(), invocation, kind);
        }
    }

    /**
     * Counts the filter's answer, closes the check's observation with it and says whether the
     * call may go on. A call the filter could not answer that would go on takes its place in the
     * filter's bypass budget; beyond it, the call is shed (or, with {@code when-exhausted: allow},
     * goes on and is counted as over budget). A passed answer teaches the budget the filter's rate.
     *
     * @param remembered whether a key the filter passed is a remembered miss that blocks, as the
     *     core's verdict judged it
     */
    private Admission decide(BloomOperations.Guard guard, Object key, Membership answer, boolean remembered,
            long started, GuardObservations.Pending observation) {
        long answeredAt = System.nanoTime();
        long elapsedNanos = answeredAt - started;
        boolean rejected = answer.isAbsent() || remembered;
        CheckOutcome outcome = rejected ? CheckOutcome.BLOCKED
                : answer == Membership.PRESENT ? CheckOutcome.PASSED : CheckOutcome.BYPASSED;
        CheckReason reason = remembered ? CheckReason.REMEMBERED : CheckReason.FILTER;
        BypassBudgets.FilterBudget budget = guard.target().budgetIn(budgets);
        boolean refusedByPolicy = answer == Membership.UNAVAILABLE && blockWhenUnavailable;
        if (outcome == CheckOutcome.PASSED) {
            budget.budget().passed(answeredAt);
        }
        else if (outcome == CheckOutcome.BLOCKED) {
            budget.budget().answered();
        }
        else {
            reason = bypassReason(guard.target().in(dependencies), answer);
            if (!refusedByPolicy && !budget.budget().tryBypass()) {
                if (budget.allowedWhenExhausted()) {
                    dependencies.metrics().recordOverBudget(guard.filter());
                }
                else {
                    outcome = CheckOutcome.SHED;
                }
            }
        }
        dependencies.metrics().record(guard.filter(), outcome, reason, elapsedNanos);
        observation.stop(outcome.tag(), null);
        if (rejected) {
            if (log.isDebugEnabled()) {
                // Only then: the key's digest costs a SHA-256 per rejection, under a flood of them.
                log.debug("Filter '{}' rejected {} for {} ({})", guard.filter(), LoggedKeys.describe(key),
                        guard.method(), reason.tag());
            }
            // A batch is not audited: a lookup that finds some of its keys would not say which.
            return !(key instanceof List<?>) && audit.sampled(guard.filter()) ? Admission.rejectedAndAudited(key)
                    : Admission.REJECTED;
        }
        if (refusedByPolicy) {
            return Admission.REJECTED;
        }
        if (outcome == CheckOutcome.SHED) {
            return Admission.shed(reason);
        }
        return answer == Membership.PRESENT && remembersMisses(guard, key) ? new Admission(true, key, started)
                : Admission.ADMITTED;
    }

    /**
     * The exception a call {@code admission} shed fails with: the filter, why it could not answer,
     * and a second to wait, in which the budget refills by a second's worth.
     */
    static BloomGuardShedException shed(BloomOperations.Guard guard, Admission admission) {
        return new BloomGuardShedException(guard.filter(), admission.shedReason().tag(), guard.method(), RETRY_AFTER);
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
}
