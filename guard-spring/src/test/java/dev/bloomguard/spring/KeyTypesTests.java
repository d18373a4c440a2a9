package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * Lookups find their row whenever PostgreSQL would: each guarded method below runs the real
 * query with the key as text, cast to the column's type as a SQL literal would be, and every
 * spelling the database matches must reach it. Key types are read from the warmup queries'
 * column types at startup; nothing is declared. Each filter still blocks absent keys.
 */
@SpringBootTest(classes = KeyTypesTests.App.class, properties = {
        "bloom-guard.key-prefix=keytypes",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.user.expected-insertions=10000",
        "bloom-guard.filters.user.warmup.sql=SELECT id FROM kt_users",
        "bloom-guard.filters.user.warmup.blocking=true",
        "bloom-guard.filters.account.expected-insertions=10000",
        "bloom-guard.filters.account.warmup.sql=SELECT id FROM kt_accounts",
        "bloom-guard.filters.account.warmup.blocking=true",
        "bloom-guard.filters.code.expected-insertions=10000",
        "bloom-guard.filters.code.warmup.sql=SELECT code FROM kt_codes",
        "bloom-guard.filters.code.warmup.blocking=true",
        "bloom-guard.filters.email.expected-insertions=10000",
        "bloom-guard.filters.email.warmup.sql=SELECT email FROM kt_emails",
        "bloom-guard.filters.email.warmup.blocking=true",
        "bloom-guard.filters.order.expected-insertions=10000",
        "bloom-guard.filters.order.warmup.sql=SELECT customer, id AS order_id FROM kt_orders",
        "bloom-guard.filters.order.warmup.key-column=ORDER_ID",
        "bloom-guard.filters.order.warmup.blocking=true",
        "bloom-guard.filters.keyed.expected-insertions=10000",
        "bloom-guard.filters.keyed.warmup.sql=SELECT id FROM kt_users",
        "bloom-guard.filters.keyed.warmup.blocking=true",
        "bloom-guard.filters.keyed.hash=siphash" })
class KeyTypesTests {

    private static final int ROWS = 1000;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("CREATE EXTENSION IF NOT EXISTS citext",
                "DROP TABLE IF EXISTS kt_users", "DROP TABLE IF EXISTS kt_accounts", "DROP TABLE IF EXISTS kt_codes",
                "DROP TABLE IF EXISTS kt_emails", "DROP TABLE IF EXISTS kt_orders",
                "CREATE TABLE kt_users (id BIGINT PRIMARY KEY)",
                "INSERT INTO kt_users SELECT g FROM generate_series(1, " + ROWS + ") g",
                "CREATE TABLE kt_accounts (id UUID PRIMARY KEY)",
                "INSERT INTO kt_accounts SELECT md5(g::text)::uuid FROM generate_series(1, " + ROWS + ") g",
                "CREATE TABLE kt_codes (code CHAR(8) PRIMARY KEY)",
                "INSERT INTO kt_codes SELECT 'C' || lpad(g::text, 4, '0') FROM generate_series(1, " + ROWS + ") g",
                "CREATE TABLE kt_emails (email CITEXT PRIMARY KEY)",
                "INSERT INTO kt_emails SELECT 'User' || g || '@Example.com' FROM generate_series(1, " + ROWS + ") g",
                "CREATE TABLE kt_orders (id BIGINT PRIMARY KEY, customer TEXT NOT NULL)",
                "INSERT INTO kt_orders SELECT g, 'customer ' || g FROM generate_series(1, " + ROWS + ") g");
        RealServers.registerRedis(registry);
        RealServers.registerPostgres(registry);
    }

    @Autowired
    Lookups lookups;

    @Autowired
    BloomFilterRegistry registry;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    BitmapStore store;

    @Test
    void readsEachFiltersKeyTypeFromItsWarmupColumn() {
        assertThat(registry.filter("user").keyType()).contains(KeyType.INTEGER);
        assertThat(registry.filter("account").keyType()).contains(KeyType.UUID);
        assertThat(registry.filter("code").keyType()).contains(KeyType.CHAR);
        assertThat(registry.filter("email").keyType()).contains(KeyType.TEXT_CASE_INSENSITIVE);
        assertThat(registry.filter("order").keyType()).contains(KeyType.INTEGER);
    }

    @Test
    void findsABigintKeyWrittenWithLeadingZerosBlanksOrASign() {
        for (String spelling : List.of("42", "0042", " 42", "42 ", "+42", "+0042", " 0042\t")) {
            assertThat(lookups.user(spelling)).as("'%s'", spelling).isEqualTo(1);
        }
        assertThat(blockedShare(g -> lookups.user(String.format("%06d", 5000 + g)))).isGreaterThan(0.95);
    }

    @Test
    void blocksTextThatNoBigintEqualsAndThatPostgresqlRejectsToo() {
        assertThatThrownBy(() -> lookups.user("abc")).isInstanceOf(BloomGuardRejectedException.class);
        assertThatThrownBy(() -> jdbc.queryForObject(Lookups.USER, Integer.class, "abc"))
                .isInstanceOf(DataAccessException.class).hasMessageContaining("invalid input syntax");
    }

    @Test
    void findsAUuidKeyWrittenInUpperCaseWithBracesOrWithoutHyphens() {
        List<UUID> present = jdbc.queryForList("SELECT id FROM kt_accounts ORDER BY id LIMIT 100", UUID.class);
        for (UUID id : present) {
            String upper = id.toString().toUpperCase(Locale.ROOT);
            for (String spelling : List.of(upper, "{" + upper + "}", upper.replace("-", ""), id.toString())) {
                assertThat(lookups.account(spelling)).as("'%s'", spelling).isEqualTo(1);
            }
        }
        assertThat(blockedShare(i -> lookups.account(UUID.randomUUID().toString().toUpperCase(Locale.ROOT))))
                .isGreaterThan(0.95);
        assertThatThrownBy(() -> lookups.account("not-a-uuid")).isInstanceOf(BloomGuardRejectedException.class);
        assertThatThrownBy(() -> jdbc.queryForObject(Lookups.ACCOUNT, Integer.class, "not-a-uuid"))
                .isInstanceOf(DataAccessException.class).hasMessageContaining("invalid input syntax");
    }

    @Test
    void findsACharKeyWithOrWithoutItsPadding() {
        for (int g = 1; g <= ROWS; g += 37) {
            String code = "C" + String.format("%04d", g);
            assertThat(lookups.code(code)).as("'%s'", code).isEqualTo(1);
            assertThat(lookups.code(code + "   ")).as("'%s   '", code).isEqualTo(1);
        }
        assertThat(blockedShare(g -> lookups.code("C" + (5000 + g) + "   "))).isGreaterThan(0.95);
    }

    @Test
    void findsACitextKeyInAnyCase() {
        for (int g = 1; g <= ROWS; g += 37) {
            for (String spelling : List.of("User" + g + "@Example.com", "user" + g + "@example.com",
                    "USER" + g + "@EXAMPLE.COM")) {
                assertThat(lookups.email(spelling)).as("'%s'", spelling).isEqualTo(1);
            }
        }
        assertThat(blockedShare(g -> lookups.email("USER" + (5000 + g) + "@example.com"))).isGreaterThan(0.95);
    }

    @Test
    void warmsFromTheNamedKeyColumnOfAQueryWithSeveralColumns() {
        for (long id = 1; id <= ROWS; id += 37) {
            assertThat(lookups.order(id)).as("order %s", id).isEqualTo(1);
        }
        assertThat(blockedShare(g -> lookups.order(5000L + g))).isGreaterThan(0.95);
    }

    /**
     * A filter hashed with siphash under a secret the first instance generated and stored in
     * Redis: it warms from the same query, passes every row and blocks absent keys.
     */
    @Test
    void warmsASiphashFilterUnderTheSecretItStoredPassingEveryRowAndBlockingAbsentKeys() {
        RedisBloomFilter keyed = registry.filter("keyed");

        assertThat(keyed.hash().algorithm()).isEqualTo(KeyHash.Algorithm.SIPHASH);
        assertThat(keyed.keys().live()).startsWith("keytypes:v1:{keyed:").endsWith("k7:" + keyed.hash().id() + ":0}")
                .isNotEqualTo(registry.filter("user").keys().live().replace("user", "keyed"));
        assertThat(HashSecrets.find(store, "keytypes", "keyed", keyed.hash().id())).contains(keyed.hash());
        for (long id = 1; id <= ROWS; id++) {
            assertThat(lookups.keyed(id)).as("row %s", id).isEqualTo(1);
        }
        assertThat(blockedShare(g -> lookups.keyed(5000L + g))).isGreaterThan(0.95);
    }

    /** The share of 1,000 lookups of absent keys that the guard rejects without calling the method. */
    private static double blockedShare(Function<Integer, Integer> lookupOfAbsentKey) {
        long blocked = IntStream.rangeClosed(1, 1000).filter(g -> {
            try {
                assertThat(lookupOfAbsentKey.apply(g)).as("an absent key that got through finds no row").isZero();
                return false;
            }
            catch (BloomGuardRejectedException ex) {
                return true;
            }
        }).count();
        return blocked / 1000.0;
    }

    /** Each method runs its query with the key as text, cast as PostgreSQL casts a literal. */
    public interface Lookups {

        String USER = "SELECT count(*) FROM kt_users WHERE id = CAST(? AS bigint)";
        String ACCOUNT = "SELECT count(*) FROM kt_accounts WHERE id = CAST(? AS uuid)";

        @BloomGuard(filter = "user", key = "#id")
        int user(String id);

        @BloomGuard(filter = "account", key = "#id")
        int account(String id);

        @BloomGuard(filter = "code", key = "#code")
        int code(String code);

        @BloomGuard(filter = "email", key = "#email")
        int email(String email);

        @BloomGuard(filter = "order", key = "#id")
        int order(long id);

        @BloomGuard(filter = "keyed", key = "#id")
        int keyed(long id);
    }

    static class DatabaseLookups implements Lookups {

        private final JdbcTemplate jdbc;

        DatabaseLookups(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Override
        public int user(String id) {
            return jdbc.queryForObject(USER, Integer.class, id);
        }

        @Override
        public int account(String id) {
            return jdbc.queryForObject(ACCOUNT, Integer.class, id);
        }

        @Override
        public int code(String code) {
            return jdbc.queryForObject("SELECT count(*) FROM kt_codes WHERE code = CAST(? AS bpchar)", Integer.class,
                    code);
        }

        @Override
        public int email(String email) {
            return jdbc.queryForObject("SELECT count(*) FROM kt_emails WHERE email = CAST(? AS citext)", Integer.class,
                    email);
        }

        @Override
        public int keyed(long id) {
            return jdbc.queryForObject("SELECT count(*) FROM kt_users WHERE id = ?", Integer.class, id);
        }

        @Override
        public int order(long id) {
            return jdbc.queryForObject("SELECT count(*) FROM kt_orders WHERE id = ?", Integer.class, id);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        DatabaseLookups lookups(JdbcTemplate jdbc) {
            return new DatabaseLookups(jdbc);
        }
    }
}
