package dev.bloomguard.spring.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import dev.bloomguard.spring.BloomGuardRejectedException;

/** Counts how many lookups of keys that do not exist a guarded repository rejects before its query. */
public final class Rejections {

    private Rejections() {
    }

    /**
     * Looks up every one of {@code absentKeys} and returns how many were rejected; a key the filter
     * lets through (a false positive) must then find nothing.
     */
    public static <K> int count(List<K> absentKeys, Function<K, ?> lookup) {
        int rejected = 0;
        for (K key : absentKeys) {
            try {
                Object found = lookup.apply(key);
                assertThat(found).as("an absent key that passes the filter finds nothing")
                        .satisfiesAnyOf(value -> assertThat(value).isNull(),
                                value -> assertThat(value).isEqualTo(Optional.empty()));
            }
            catch (BloomGuardRejectedException ex) {
                rejected++;
            }
        }
        return rejected;
    }
}
