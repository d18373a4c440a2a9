package dev.bloomguard.core;

import java.util.List;
import java.util.stream.LongStream;

import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * How a filter answered keys never added to it: what the tests that measure its false-positive
 * rate count. The keys are 1,000,000,000 and up, far above the ids the tests load, and are asked in
 * batches of 1,000. An answer neither PRESENT nor ABSENT is in neither count, so a test can tell an
 * undecided answer from a false positive.
 *
 * @param asked how many keys were asked
 * @param falsePositives how many the filter answered PRESENT
 * @param absent how many it answered ABSENT
 */
record NeverAddedAnswers(int asked, long falsePositives, long absent) {

    private static final long FIRST_KEY = 1_000_000_000L;
    private static final int BATCH = 1_000;

    /** Asks {@code filter} about {@code count} keys never added. */
    static NeverAddedAnswers of(RedisBloomFilter filter, int count) {
        long falsePositives = 0;
        long absent = 0;
        for (long start = 0; start < count; start += BATCH) {
            List<Long> batch = LongStream.range(start, Math.min(count, start + BATCH)).map(i -> FIRST_KEY + i).boxed().toList();
            for (Membership answer : filter.checkAll(batch)) {
                if (answer == Membership.PRESENT) {
                    falsePositives++;
                }
                else if (answer == Membership.ABSENT) {
                    absent++;
                }
            }
        }
        return new NeverAddedAnswers(count, falsePositives, absent);
    }

    /** The share of the keys asked that the filter let through. */
    double falsePositiveRate() {
        return (double) falsePositives / asked;
    }
}
