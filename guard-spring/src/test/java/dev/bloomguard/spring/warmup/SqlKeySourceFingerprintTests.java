package dev.bloomguard.spring.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import com.google.common.hash.Hashing;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;

/**
 * The warmup fingerprint is stored next to every live filter, and a changed one makes every
 * instance re-warm: it must stay byte for byte what releases computing it with Guava's
 * {@code Hashing.sha256()} stored, for the query-only form and for the one naming the key
 * column and key type.
 */
class SqlKeySourceFingerprintTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=fingerprint",
                    "bloom-guard.filters.untyped.expected-insertions=1000",
                    "bloom-guard.filters.typed.expected-insertions=1000",
                    "bloom-guard.filters.typed.key-type=integer",
                    "bloom-guard.filters.text.expected-insertions=1000",
                    "bloom-guard.filters.text.key-type=text-case-insensitive");

    @Test
    void queryOnlyFingerprintIsGuavasSha256OfTheQuery() {
        runner.run(context -> {
            RedisBloomFilter untyped = context.getBean(BloomFilterRegistry.class).filter("untyped");
            for (String sql : new String[] { "SELECT id FROM users", "select e_mail from \"Användare\" -- ünïcødé ☃",
                    "SELECT id\nFROM orders\nWHERE deleted = false", "" }) {
                assertThat(new SqlKeySource(null, sql, 100).fingerprint(untyped)).isEqualTo(guava(sql));
            }
        });
    }

    @Test
    void keyedFingerprintIsGuavasSha256OfTheQueryKeyColumnAndKeyType() {
        runner.run(context -> {
            BloomFilterRegistry filters = context.getBean(BloomFilterRegistry.class);
            assertThat(new SqlKeySource(null, "SELECT id, name FROM users", 100, "id").fingerprint(filters.filter("typed")))
                    .isEqualTo(guava("SELECT id, name FROM users\n-- key-column: id\n-- key-type: integer"));
            assertThat(new SqlKeySource(null, "SELECT email FROM users", 100).fingerprint(filters.filter("text")))
                    .isEqualTo(guava("SELECT email FROM users\n-- key-column: \n-- key-type: text-case-insensitive"));
            assertThat(new SqlKeySource(null, "SELECT uid FROM users", 100, "uid").fingerprint(filters.filter("untyped")))
                    .isEqualTo(guava("SELECT uid FROM users\n-- key-column: uid\n-- key-type: "));
        });
    }

    @Test
    void fingerprintsOfEarlierReleasesAreUnchanged() {
        runner.run(context -> {
            BloomFilterRegistry filters = context.getBean(BloomFilterRegistry.class);
            assertThat(new SqlKeySource(null, "SELECT id FROM users", 100).fingerprint(filters.filter("untyped")))
                    .isEqualTo("sql:8083cce16b71ea3b");
            assertThat(new SqlKeySource(null, "SELECT id, name FROM users", 100, "id").fingerprint(filters.filter("typed")))
                    .isEqualTo("sql:4ecc2fa14ac45937");
        });
    }

    /** What the releases that hashed with Guava stored: the first 16 hex digits of the SHA-256 of the UTF-8 text. */
    private static String guava(String identity) {
        return "sql:" + Hashing.sha256().hashString(identity, StandardCharsets.UTF_8).toString().substring(0, 16);
    }
}
