package dev.bloomguard.demo;

import java.util.List;
import java.util.stream.LongStream;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;

/**
 * Finds an id no user has that the filter {@code user} nevertheless says may exist: the cost a
 * Bloom filter accepts, one database query per lookup. It asks the filter about absent ids in
 * order from {@link AttackSimulator#ABSENT_IDS_FROM}, a batch per round trip, and keeps the first
 * one that passes while the filter still lets it through (a rebuild keeps a natural one).
 *
 * <p>Asking the filter directly records no {@code bloomguard.checks}: only guarded calls count.
 */
final class FalsePositiveProbe {

    /**
     * Absent ids tried: under a second of probing. The demo's full filter (a million users in room
     * for two) has one every 4,000 ids or so; a filter this many probes cannot fault is too empty
     * to show one.
     */
    static final int PROBES = 100_000;

    /**
     * Ids per {@code checkAll}: one round trip of about a millisecond, inside the demo's 50 ms
     * {@code redis-timeout} even on a busy machine (10,000 are not).
     */
    private static final int BATCH = 250;

    /** Tries of one batch that Redis did not answer in time. */
    private static final int TRIES = 5;

    private final ObjectProvider<BloomFilterRegistry> filters;
    private final JdbcTemplate jdbc;
    private Long found;

    /**
     * @param filters looked up when first needed: the registry checks the warmup SQL against the
     *     {@code users} table when it is created, so it must not be created before
     *     {@link UserTableSeeder} has made the table
     */
    FalsePositiveProbe(ObjectProvider<BloomFilterRegistry> filters, JdbcTemplate jdbc) {
        this.filters = filters;
        this.jdbc = jdbc;
    }

    /**
     * @throws IllegalStateException when the filter cannot answer or lets none of {@link #PROBES}
     *     absent ids through
     */
    synchronized long find() {
        RedisBloomFilter filter = filters.getObject().filter(StatsController.FILTER);
        if (found != null && filter.check(found) == Membership.PRESENT) {
            return found;
        }
        long first = AttackSimulator.ABSENT_IDS_FROM;
        for (long from = first; from < first + PROBES; from += BATCH) {
            List<Long> candidates = LongStream.range(from, from + BATCH).boxed().toList();
            List<Membership> answers = check(filter, candidates);
            for (int i = 0; i < answers.size(); i++) {
                if (answers.get(i) == Membership.PRESENT && !userExists(candidates.get(i))) {
                    found = candidates.get(i);
                    return found;
                }
            }
        }
        throw new IllegalStateException("No false positive among " + PROBES
                + " absent ids: the filter is too empty to have one");
    }

    private static List<Membership> check(RedisBloomFilter filter, List<Long> candidates) {
        Membership undecided = null;
        for (int tries = 0; tries < TRIES && undecided != Membership.NOT_READY; tries++) {
            List<Membership> answers = filter.checkAll(candidates);
            undecided = answers.stream().filter(answer -> !answer.isDecided()).findFirst().orElse(null);
            if (undecided == null) {
                return answers;
            }
        }
        throw new IllegalStateException("The filter cannot answer now (" + undecided + "); try again when it is READY");
    }

    private boolean userExists(long id) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM users WHERE id = ?", Long.class, id) > 0;
    }
}
