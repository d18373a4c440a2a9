package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;

class FilterKeysTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(1_000_000, 0.01);

    @Test
    void namesTheLiveKeyAfterPrefixFilterAndGeometry() {
        assertThat(FilterKeys.of("bg", "user", GEOMETRY).live()).isEqualTo("bg:{user:m9585088k7:0}");
    }

    @Test
    void putsEveryStagingKeyInTheLiveKeysHashSlot() {
        FilterKeys keys = FilterKeys.of("bg", "user", GEOMETRY);

        String staging = keys.newStaging();

        assertThat(staging).startsWith(keys.live() + ":staging:");
        assertThat(hashTag(staging)).isEqualTo(hashTag(keys.live())).isEqualTo("user:m9585088k7:0");
        assertThat(keys.newStaging()).isNotEqualTo(staging);
    }

    @Test
    void givesAnotherGeometryAnotherKey() {
        assertThat(FilterKeys.of("bg", "user", FilterGeometry.of(2_000_000, 0.01)).live())
                .isNotEqualTo(FilterKeys.of("bg", "user", GEOMETRY).live());
    }

    @Test
    void keepsTheNamesOfFiltersWithoutKeyTypeForKeyTypesThatStoreJavaFormsAsTheyWere() {
        for (KeyType type : new KeyType[] { KeyType.INTEGER, KeyType.UUID, KeyType.TEXT, KeyType.BYTES }) {
            assertThat(FilterKeys.of("bg", "user", GEOMETRY, type).live()).isEqualTo("bg:{user:m9585088k7:0}");
        }
    }

    @Test
    void givesKeyTypesThatStoreTextOtherwiseKeysOfTheirOwn() {
        assertThat(FilterKeys.of("bg", "email", GEOMETRY, KeyType.TEXT_CASE_INSENSITIVE).live())
                .isEqualTo("bg:{email:m9585088k7:text-case-insensitive:0}");
        assertThat(FilterKeys.of("bg", "code", GEOMETRY, KeyType.CHAR).live()).isEqualTo("bg:{code:m9585088k7:char:0}");
    }

    @Test
    void namesASipHashFilterAfterTheFingerprintOfItsSecret() {
        KeyHash sipHash = KeyHash.sipHash("000102030405060708090a0b0c0d0e0f");

        assertThat(FilterKeys.of("bg", "user", GEOMETRY, null, sipHash.id()).live()).isEqualTo("bg:{user:m9585088k7:sip-62c27cf4:0}");
        assertThat(FilterKeys.of("bg", "email", GEOMETRY, KeyType.TEXT_CASE_INSENSITIVE, sipHash.id()).live())
                .isEqualTo("bg:{email:m9585088k7:text-case-insensitive:sip-62c27cf4:0}");
        assertThat(FilterKeys.of("bg", "user", GEOMETRY, KeyType.INTEGER, KeyHash.murmur3().id()).live())
                .isEqualTo("bg:{user:m9585088k7:0}");
        assertThat(FilterKeys.of("bg", "user", GEOMETRY, null, KeyHash.sipHash("9f86d081884c7d659a2feaa0c55ad015").id())
                .live()).isNotEqualTo("bg:{user:m9585088k7:sip-62c27cf4:0}");
    }

    @Test
    void rejectsAHashIdThatIsNotOne() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterKeys.of("bg", "user", GEOMETRY, null, "sip-}x"))
                .withMessageContaining("hash id (sip-}x)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "user id", "user{1}", "a:b", "ü"})
    void rejectsFilterNamesThatWouldBreakTheKeyQuotingThem(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterKeys.of("bg", name, GEOMETRY))
                .withMessageContaining("filter name (" + name + ")");
    }

    @Test
    void rejectsABlankPrefix() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterKeys.of(" ", "user", GEOMETRY))
                .withMessageContaining("key-prefix");
    }

    private static String hashTag(String key) {
        return key.substring(key.indexOf('{') + 1, key.indexOf('}'));
    }
}
