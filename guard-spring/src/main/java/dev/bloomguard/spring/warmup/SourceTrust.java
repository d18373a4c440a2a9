package dev.bloomguard.spring.warmup;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.bloomguard.core.Hold;
import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * Whether this instance knows that each filter's live bitmap was loaded from its own key source;
 * while it does not, the filter holds {@link Hold#FOREIGN_SOURCE} (its "absent" lets the key
 * through), as the bitmap may come from another warmup query and lack rows only this instance's
 * returns.
 *
 * <p>This is the warmer's own record, and the only thing the warmer reads to decide: it tells the
 * filter ({@link RedisBloomFilter#hold}, {@link RedisBloomFilter#release}) and never reads the
 * filter's holds back.
 * Both writes of a change happen under one lock, so two racing changes cannot leave the record
 * suspended and the filter blocking. Only a write from outside the warmer can: every distrust is
 * therefore written through even when recorded already, so a filter whose suspension someone else
 * lifted while another query's bitmap is live is suspended again at the warmer's next look.
 */
final class SourceTrust {

    private final Set<String> distrusted = ConcurrentHashMap.newKeySet();

    /** Whether blocking of {@code filter} is not suspended by this warmer. */
    boolean trusts(String filter) {
        return !distrusted.contains(filter);
    }

    /**
     * Suspends {@code filter}'s blocking (again, even if recorded already).
     *
     * @return true when the record changed, for a log line once per change
     */
    synchronized boolean distrust(RedisBloomFilter filter) {
        boolean changed = distrusted.add(filter.name());
        filter.hold(Hold.FOREIGN_SOURCE);
        return changed;
    }

    /**
     * Lifts the suspension: the live bitmap is known to come from this instance's own source.
     *
     * @return true when the record changed
     */
    synchronized boolean trust(RedisBloomFilter filter) {
        boolean changed = distrusted.remove(filter.name());
        filter.release(Hold.FOREIGN_SOURCE);
        return changed;
    }
}
