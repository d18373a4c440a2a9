package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;

/**
 * A key expression is checked whole when the application starts: every variable a compound
 * expression references must name a parameter, an argument index the method has, or a documented
 * root variable. At run time a compound key built from a null part is an error, not {@code "u:null"}.
 */
class KeyExpressionStartupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BootNames.redisAutoConfiguration(),
                    BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=key-expressions", "bloom-guard.filters.user.expected-insertions=1000");

    @Test
    void failsOnACompoundKeyThatMisspellsAParameter() {
        assertStartupFails(TypoInCompoundKey.class, TypoInCompoundKey::new, "TypoInCompoundKey.find",
                "'u:' + #idd", "#idd", "available: #name, #p0, #a0, #root");
    }

    @Test
    void failsOnACompoundKeyThatIndexesPastTheParameters() {
        assertStartupFails(IndexPastParameters.class, IndexPastParameters::new, "IndexPastParameters.find", "#p3",
                "1 parameter");
    }

    @Test
    void failsOnAResultInACompoundGuardKey() {
        assertStartupFails(ResultInCompoundGuard.class, ResultInCompoundGuard::new, "ResultInCompoundGuard.find",
                "#result", "only @BloomPut");
    }

    @Test
    void failsOnAnUnknownVariableInACompoundPutKey() {
        assertStartupFails(TypoInCompoundPut.class, TypoInCompoundPut::new, "TypoInCompoundPut.save", "#resul",
                "#result");
    }

    @Test
    void aCompoundKeyWithANullPartIsAnErrorNotTheTextNull() {
        runner.withBean(CompoundKeys.class, CompoundKeys::new).run(context -> {
            assertThat(context).hasNotFailed();
            CompoundKeys keys = context.getBean(CompoundKeys.class);
            assertThatThrownBy(() -> keys.find(null, "eu"))
                    .isInstanceOf(BloomGuardException.class)
                    .isNotInstanceOf(BloomGuardRejectedException.class)
                    .hasMessageContaining("CompoundKeys.find")
                    .hasMessageContaining("#name is null");
            assertThat(keys.calls).as("the method did not run on a key that could not be formed").isZero();
            // Both parts present: the key is formed and checked (the filter is not loaded, so it passes).
            assertThat(keys.find("ann", "eu")).contains("ann");
            // A key that is null as a whole is, as always, not checked.
            assertThat(keys.findWhole(null)).isEmpty();
        });
    }

    private <T> void assertStartupFails(Class<T> type, Supplier<T> bean, String... fragments) {
        runner.withBean(type, bean).run(StartupFailures.failsWith(fragments));
    }

    static class TypoInCompoundKey {
        @BloomGuard(filter = "user", key = "'u:' + #idd")
        public Optional<String> find(String name) {
            return Optional.of(name);
        }
    }

    static class IndexPastParameters {
        @BloomGuard(filter = "user", key = "'u:' + #p3")
        public Optional<String> find(String name) {
            return Optional.of(name);
        }
    }

    static class ResultInCompoundGuard {
        @BloomGuard(filter = "user", key = "'u:' + #result")
        public Optional<String> find(String name) {
            return Optional.of(name);
        }
    }

    static class TypoInCompoundPut {
        @BloomPut(filter = "user", key = "'u:' + #resul.length()")
        public String save(String name) {
            return name;
        }
    }

    static class CompoundKeys {
        int calls;

        @BloomGuard(filter = "user", key = "#region + ':' + #name")
        public Optional<String> find(String name, String region) {
            calls++;
            return Optional.of(name);
        }

        @BloomGuard(filter = "user", key = "#name")
        public Optional<String> findWhole(String name) {
            return Optional.empty();
        }
    }
}
