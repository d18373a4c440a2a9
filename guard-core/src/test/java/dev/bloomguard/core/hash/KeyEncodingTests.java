package dev.bloomguard.core.hash;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyEncodingTests {

    @Test
    void writesIntegersOfEveryTypeAsDecimalText() {
        assertThat(KeyEncoding.canonicalText(42L)).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText(42)).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText((short) 42)).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText((byte) 42)).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText(BigInteger.valueOf(42))).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText(new AtomicLong(42))).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText(new AtomicInteger(42))).isEqualTo("42");
    }

    @Test
    void writesNegativeAndExtremeIntegersInFull() {
        assertThat(KeyEncoding.canonicalText(-7L)).isEqualTo("-7");
        assertThat(KeyEncoding.canonicalText(Long.MIN_VALUE)).isEqualTo("-9223372036854775808");
        assertThat(KeyEncoding.canonicalText(new BigInteger("123456789012345678901234567890")))
                .isEqualTo("123456789012345678901234567890");
    }

    @Test
    void writesDecimalsPlainWithoutTrailingZeros() {
        assertThat(KeyEncoding.canonicalText(new BigDecimal("42.000"))).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText(new BigDecimal("42.50"))).isEqualTo("42.5");
        assertThat(KeyEncoding.canonicalText(new BigDecimal("4.2E+3"))).isEqualTo("4200");
        assertThat(KeyEncoding.canonicalText(new BigDecimal("1E-7"))).isEqualTo("0.0000001");
        assertThat(KeyEncoding.canonicalText(new BigDecimal("-0.50"))).isEqualTo("-0.5");
    }

    @Test
    void writesEveryZeroDecimalAsZero() {
        assertThat(KeyEncoding.canonicalText(new BigDecimal("0E-10"))).isEqualTo("0");
        assertThat(KeyEncoding.canonicalText(new BigDecimal("0.000"))).isEqualTo("0");
        assertThat(KeyEncoding.canonicalText(new BigDecimal("0E+5"))).isEqualTo("0");
        assertThat(KeyEncoding.canonicalText(-0.0d)).isEqualTo("0");
    }

    @Test
    void writesWholeDoublesAndFloatsLikeTheIntegerTheyEqual() {
        assertThat(KeyEncoding.canonicalText(42.0d)).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText(42.0f)).isEqualTo("42");
        assertThat(KeyEncoding.canonicalText(1.5d)).isEqualTo("1.5");
        assertThat(KeyEncoding.canonicalText(0.1f)).isEqualTo("0.1");
        assertThat(KeyEncoding.canonicalText(1e20d)).isEqualTo("100000000000000000000");
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void rejectsNonFiniteDoubles(double key) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> KeyEncoding.canonicalText(key))
                .withMessageContaining("finite number");
    }

    @Test
    void rejectsNonFiniteFloats() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> KeyEncoding.canonicalText(Float.NaN))
                .withMessageContaining("finite number");
    }

    @Test
    void writesAUuidInLowerCaseWhateverTheTextItWasParsedFrom() {
        UUID fromUpperCase = UUID.fromString("123E4567-E89B-12D3-A456-426614174000");

        assertThat(KeyEncoding.canonicalText(fromUpperCase)).isEqualTo("123e4567-e89b-12d3-a456-426614174000");
        assertThat(KeyEncoding.canonicalText(fromUpperCase))
                .isEqualTo(KeyEncoding.canonicalText("123e4567-e89b-12d3-a456-426614174000"));
    }

    @Test
    void keepsTextAsIsWithoutCaseFoldingOrTrimming() {
        assertThat(KeyEncoding.canonicalText("123E4567-E89B-12D3-A456-426614174000"))
                .isEqualTo("123E4567-E89B-12D3-A456-426614174000");
        assertThat(KeyEncoding.canonicalText(" Alice ")).isEqualTo(" Alice ");
        assertThat(KeyEncoding.canonicalText(new StringBuilder("alice"))).isEqualTo("alice");
        assertThat(KeyEncoding.canonicalText("42.0")).isEqualTo("42.0");
    }

    @Test
    void writesAnEnumConstantAsItsName() {
        assertThat(KeyEncoding.canonicalText(TimeUnit.SECONDS)).isEqualTo("SECONDS");
        assertThat(KeyEncoding.canonicalText(Colour.RED)).isEqualTo("RED");
    }

    @Test
    void writesAnyOtherTypeWithItsToString() {
        assertThat(KeyEncoding.canonicalText(new Sku("A-17"))).isEqualTo("Sku[code=A-17]");
    }

    @Test
    void writesBytesAsHexSoThatEqualArraysHashAlike() {
        assertThat(KeyEncoding.canonicalText(new byte[] { 0x0a, (byte) 0xff, 0 })).isEqualTo("0aff00");
        assertThat(KeyEncoding.canonicalBytes(new byte[] { 1, 2 })).isEqualTo(KeyEncoding.canonicalBytes(new byte[] { 1, 2 }));
    }

    @Test
    void rejectsATypeWhoseToStringIsObjectsIdentity() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> KeyEncoding.canonicalText(new Object()))
                .withMessageContaining("java.lang.Object").withMessageContaining("toString");
        assertThatIllegalArgumentException().isThrownBy(() -> KeyEncoding.canonicalText(new NoToString()))
                .withMessageContaining(NoToString.class.getName());
    }

    @Test
    void rejectsANullKeyWithAClearMessage() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> KeyEncoding.canonicalText(null))
                .withMessageContaining("null key");
        assertThatIllegalArgumentException().isThrownBy(() -> KeyEncoding.canonicalBytes(null));
    }

    @Test
    void hashesTheUtf8BytesOfTheCanonicalText() {
        assertThat(KeyEncoding.canonicalBytes("é")).containsExactly((byte) 0xC3, (byte) 0xA9);
        assertThat(KeyEncoding.canonicalBytes(new BigDecimal("42.000"))).isEqualTo("42".getBytes(UTF_8));
    }

    private enum Colour {
        RED {
            @Override
            public String toString() {
                return "red, with a toString the key must not use";
            }
        }
    }

    private record Sku(String code) {
    }

    private static final class NoToString {
    }
}
