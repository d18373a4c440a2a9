package dev.bloomguard.core.filter;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.check.Verdict;
import dev.bloomguard.core.rollout.FilterGenerations;

/**
 * Which generation a call of the façade goes to: checks to the one that answers now (this one,
 * another during a rolling change, or none: not ready), adds to every one written, remembered
 * misses only to this one while it answers itself; and large batches in chunks of
 * {@code maxBatchSize}. Outside a rollout every call goes to this generation's parts.
 *
 * <p>A check answered by another generation is still this instance's: {@link Verdict#ofGeneration}
 * judges its "absent" again by this generation's {@link dev.bloomguard.core.check.Holds holds}.
 */
final class GenerationRouting {

    private final RedisBloomFilter self;
    private final FilterParts own;
    private final FilterGenerations<FilterParts> generations;

    GenerationRouting(RedisBloomFilter self, FilterParts own) {
        this.self = self;
        this.own = own;
        this.generations = own.generations;
    }

    /** The generation that answers checks now: the own one, another during a rolling change, or null when none can. */
    private FilterParts answering() {
        return generations == null ? own : generations.answering();
    }

    Membership check(Object key) {
        FilterParts answering = answering();
        if (answering == own) {
            return own.checks.check(key);
        }
        if (answering == null) {
            own.signals.noGenerationAnswers();
            return Membership.NOT_READY;
        }
        long sent = own.holds.sent(); // see Probe#sent
        return Verdict.ofGeneration(answering.checks.check(key), own.holds, sent);
    }

    CompletableFuture<Membership> checkAsync(Object key) {
        FilterParts answering = answering();
        if (answering == own) {
            return own.checks.checkAsync(key);
        }
        if (answering == null) {
            own.signals.noGenerationAnswers();
            return CompletableFuture.completedFuture(Membership.NOT_READY);
        }
        long sent = own.holds.sent();
        return answering.checks.checkAsync(key).thenApply(answer -> Verdict.ofGeneration(answer, own.holds, sent));
    }

    List<Membership> checkAll(Collection<?> keys) {
        if (keys.size() > own.maxBatchSize) {
            return Chunks.map(keys, own.maxBatchSize, this::checkAll);
        }
        FilterParts answering = answering();
        if (answering == own) {
            return own.checks.checkAll(keys);
        }
        if (answering == null) {
            own.signals.noGenerationAnswers();
            return Verdict.notReady(keys);
        }
        long sent = own.holds.sent();
        return Verdict.ofGeneration(answering.checks.checkAll(keys), own.holds, sent);
    }

    CompletableFuture<List<Membership>> checkAllAsync(Collection<?> keys) {
        if (keys.size() > own.maxBatchSize) {
            return Chunks.mapAsync(keys, own.maxBatchSize, this::checkAllAsync);
        }
        FilterParts answering = answering();
        if (answering == own) {
            return own.checks.checkAllAsync(keys);
        }
        if (answering == null) {
            own.signals.noGenerationAnswers();
            return CompletableFuture.completedFuture(Verdict.notReady(keys));
        }
        long sent = own.holds.sent();
        return answering.checks.checkAllAsync(keys).thenApply(answers -> Verdict.ofGeneration(answers, own.holds, sent));
    }

    /** See {@link RedisBloomFilter#isAnsweringSuspended}. */
    boolean isAnsweringSuspended() {
        FilterParts answering = generations == null ? null : generations.answering();
        return answering != null && answering != own ? answering.holds.any() || own.holds.any() : own.holds.any();
    }

    void addAll(Collection<?> keys) {
        if (keys.size() > own.maxBatchSize) {
            Chunks.forEach(keys, own.maxBatchSize, this::addAll);
            return;
        }
        try {
            own.writes.addAll(keys, () -> {
                if (generations != null) {
                    generations.addToOthers(keys);
                }
            });
        }
        catch (RuntimeException ex) {
            own.publisher.publish(new FilterEvent.AddFailed(self, keys.size(), ex));
            throw ex;
        }
    }

    CompletableFuture<Void> addAllAsync(Collection<?> keys) {
        if (keys.size() > own.maxBatchSize) {
            return Chunks.forEachAsync(keys, own.maxBatchSize, this::addAllAsync);
        }
        CompletableFuture<Void> added = own.writes.addAllAsync(keys, () -> generations == null
                ? CompletableFuture.completedFuture(null) : generations.addToOthersAsync(keys));
        added.whenComplete((ignored, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException wrapped && wrapped.getCause() != null
                        ? wrapped.getCause() : error;
                own.publisher.publish(new FilterEvent.AddFailed(self, keys.size(), cause));
            }
        });
        return added; // not the stage above: callers see the failure as before
    }

    /** In this generation and every other one written (whose instances remember misses under their own keys). */
    CompletableFuture<Void> forgetMissesAsync(Collection<?> added) {
        CompletableFuture<Void> forgotten = own.writes.forgetOwnMissesAsync(added);
        if (generations != null) {
            for (FilterParts other : generations.others()) {
                forgotten = forgotten.thenCombine(other.writes.forgetOwnMissesAsync(added),
                        (mine, theirs) -> null);
            }
        }
        return forgotten;
    }

    /** Remembered, and blocking: {@link Verdict#remembered} judges it by this generation's holds. */
    CompletableFuture<Boolean> isRememberedMissAsync(Object key, String scope) {
        if (own.misses == null || !answersItself()) {
            return CompletableFuture.completedFuture(Boolean.FALSE);
        }
        long sent = own.holds.sent();
        return own.misses.isRememberedAsync(own.filter.canonical(key), scope)
                .thenApply(found -> Verdict.remembered(found, own.holds, sent));
    }

    CompletableFuture<Boolean> rememberMissAsync(Object key, String scope, long checkStartedNanos) {
        return own.misses == null || !answersItself() ? CompletableFuture.completedFuture(Boolean.FALSE)
                : own.misses.rememberAsync(own.filter.canonical(key), scope, checkStartedNanos);
    }

    /**
     * Whether this filter's own generation answers its checks. Misses are remembered, and
     * confirmed, under the own generation's keys, where only the writers that know it mark and
     * forget their adds: while another generation answers (a rolling change, before the own one
     * is loaded covering every writer), a writer that does not know the own one yet adds without
     * a trace there, and its key's miss would be remembered after its add.
     */
    private boolean answersItself() {
        return generations == null || generations.answering() == own;
    }

    /** While a grown generation answers, its state, shown as this filter's resized one. */
    FilterStatus status() {
        Optional<FilterParts> resized = generations == null ? Optional.empty() : generations.answeringResized();
        return resized.isPresent() ? own.status.resized(resized.get().status.read()) : own.status.read();
    }
}
