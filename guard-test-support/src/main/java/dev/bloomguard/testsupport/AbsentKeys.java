package dev.bloomguard.testsupport;

import java.util.List;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * Keys a filter answers absent for, for tests that show a path blocks absent keys. A Bloom
 * filter answers "present" for some keys never added (its false positives), so a test cannot
 * pick any key it did not add: it picks candidates it never added and keeps those the filter
 * answers absent for. The predicate is the filter's answer ({@code id -> filter.check(id) ==
 * Membership.ABSENT}); this module sits below guard-core and knows no filter.
 */
public final class AbsentKeys {

    private AbsentKeys() {
    }

    /**
     * The first {@code count} of {@code candidates}, in their order, that {@code absent} holds for.
     *
     * @throws AssertionError when the candidates run out first
     */
    public static <T> List<T> first(int count, Stream<T> candidates, Predicate<? super T> absent) {
        List<T> found = candidates.filter(absent).limit(count).toList();
        if (found.size() < count) {
            throw new AssertionError("Only " + found.size() + " of the candidates are answered absent; the test needs " + count);
        }
        return found;
    }

    /** {@link #first(int, Stream, Predicate)} for numeric ids. */
    public static List<Long> first(int count, LongStream candidates, LongPredicate absent) {
        return first(count, candidates.boxed(), absent::test);
    }
}
