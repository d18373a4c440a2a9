package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

class AbsentKeysTests {

    @Test
    void keepsTheCandidatesAnsweredAbsentInTheirOrder() {
        assertThat(AbsentKeys.first(3, LongStream.iterate(1, id -> id + 1), id -> id % 3 == 0)).containsExactly(3L, 6L, 9L);
        assertThat(AbsentKeys.first(2, Stream.of("a", "bb", "c", "dd"), key -> key.length() == 2)).containsExactly("bb", "dd");
    }

    @Test
    void failsWhenTooFewCandidatesAreAbsent() {
        assertThatThrownBy(() -> AbsentKeys.first(3, LongStream.rangeClosed(1, 5), id -> id == 4))
                .isInstanceOf(AssertionError.class).hasMessageContaining("Only 1").hasMessageContaining("needs 3");
    }
}
