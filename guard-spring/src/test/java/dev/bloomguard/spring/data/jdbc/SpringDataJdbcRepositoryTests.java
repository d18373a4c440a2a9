package dev.bloomguard.spring.data.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomKeySource;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.data.Rejections;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.spring.warmup.RepositoryKeySource;

/**
 * The README's first example as a user writes it: annotations on the interface of a Spring Data
 * JDBC repository (a JDK proxy the application never implements), on PostgreSQL. Parameter names,
 * annotations and return types come from the interface method that declares them, including a
 * generic base interface and the redeclared {@code save}/{@code saveAll} of {@link CrudRepository}.
 */
@SpringBootTest(classes = SpringDataJdbcRepositoryTests.App.class, properties = {
        "bloom-guard.key-prefix=data-jdbc",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.account.expected-insertions=20000",
        "bloom-guard.filters.account.warmup.sql=SELECT id FROM data_jdbc_accounts",
        "bloom-guard.filters.account.warmup.blocking=true",
        "bloom-guard.filters.account-email.expected-insertions=20000",
        "bloom-guard.filters.account-email.warmup.sql=SELECT email FROM data_jdbc_accounts",
        "bloom-guard.filters.account-email.warmup.blocking=true",
        "bloom-guard.filters.order.expected-insertions=20000",
        "bloom-guard.filters.order.warmup.sql=SELECT id FROM data_jdbc_orders",
        "bloom-guard.filters.order.warmup.blocking=true",
        "bloom-guard.filters.account-stream.expected-insertions=20000",
        "bloom-guard.filters.account-stream.warmup.blocking=true",
        "bloom-guard.filters.account-stream.key-type=integer" })
class SpringDataJdbcRepositoryTests {

    /** Present account and order ids are 1..ROWS, and the saved ones just above; ids past a million never exist. */
    private static final int ROWS = 5_000;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("DROP TABLE IF EXISTS data_jdbc_accounts", "DROP TABLE IF EXISTS data_jdbc_orders",
                "CREATE TABLE data_jdbc_accounts (id BIGSERIAL PRIMARY KEY, email TEXT NOT NULL)",
                "INSERT INTO data_jdbc_accounts (email) SELECT 'user' || g || '@example.com' FROM generate_series(1, "
                        + ROWS + ") g",
                "CREATE TABLE data_jdbc_orders (id BIGINT PRIMARY KEY, total INT NOT NULL)",
                "INSERT INTO data_jdbc_orders SELECT g, g FROM generate_series(1, " + ROWS + ") g");
        RealServers.registerRedis(registry);
        RealServers.registerPostgres(registry);
    }

    @Autowired
    AccountRepository accounts;

    @Autowired
    OrderRepository orders;

    @Autowired
    OrderCrudRepository orderCrud;

    @Autowired
    BloomFilterRegistry registry;

    @Autowired
    FilterWarmer warmer;

    @Test
    void findByIdOnTheRepositoryInterfacePassesPresentIdsAndRejectsAbsentOnes() {
        for (long id = 1; id <= ROWS; id++) {
            assertThat(accounts.findById(id)).as("account %s", id).isPresent();
        }
        assertThat(Rejections.count(LongStream.rangeClosed(1_000_001, 1_002_000).boxed().toList(), accounts::findById))
                .as("absent ids rejected before the query").isGreaterThan(1_900);
    }

    @Test
    void customFinderIsGuardedByItsOwnParameterName() {
        for (int i = 1; i <= ROWS; i += 7) {
            assertThat(accounts.findByEmail("user" + i + "@example.com")).isPresent();
        }
        List<String> absent = LongStream.rangeClosed(1, 1_000).mapToObj(i -> "nobody" + i + "@example.com").toList();
        assertThat(Rejections.count(absent, accounts::findByEmail)).isGreaterThan(950);
    }

    @Test
    void findByIdDeclaredOnAGenericBaseInterfaceIsGuarded() {
        for (long id = 1; id <= ROWS; id += 3) {
            assertThat(orders.findById(id)).isPresent();
        }
        assertThat(Rejections.count(LongStream.rangeClosed(1_000_001, 1_001_000).boxed().toList(), orders::findById))
                .isGreaterThan(950);
    }

    @Test
    void aGuardOnABaseInterfaceHoldsBesideCrudRepositorysOwnDeclaration() {
        for (long id = 1; id <= ROWS; id += 3) {
            assertThat(orderCrud.findById(id)).isPresent();
        }
        assertThat(Rejections.count(LongStream.rangeClosed(1_000_001, 1_001_000).boxed().toList(), orderCrud::findById))
                .isGreaterThan(950);
    }

    @Test
    void rowsSavedThroughTheRepositoryPassAtOnce() {
        for (int i = 0; i < 100; i++) {
            AccountRow saved = accounts.save(new AccountRow(null, "new" + i + "@example.com"));
            assertThat(saved.id()).isGreaterThan(ROWS);
            assertThat(accounts.findById(saved.id())).contains(saved);
        }
        List<AccountRow> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            batch.add(new AccountRow(null, "batch" + i + "@example.com"));
        }
        for (AccountRow saved : accounts.saveAll(batch)) {
            assertThat(accounts.findById(saved.id())).contains(saved);
        }
    }

    /**
     * Filter {@code account-stream} has no SQL: the README's {@code @BloomKeySource} bean fills it
     * from the repository's streaming query, inside a read-only transaction (PostgreSQL streams
     * a cursor only inside one).
     */
    @Test
    void aFilterWarmedFromARepositoryStreamPassesEveryRowAndBlocksAbsentOnes() {
        RedisBloomFilter filter = registry.filter("account-stream");
        assertThat(filter.liveSourceId()).hasValueSatisfying(source -> assertThat(source).startsWith("stream:"));
        List<Long> present = LongStream.rangeClosed(1, ROWS).boxed().toList();
        assertThat(filter.checkAll(present)).containsOnly(Membership.PRESENT);
        long absent = filter.checkAll(LongStream.rangeClosed(1_000_001, 1_002_000).boxed().toList()).stream()
                .filter(answer -> answer == Membership.ABSENT).count();
        assertThat(absent).as("absent ids blocked").isGreaterThan(1_900);
        assertThat(warmer.sourceDescription("account-stream")).contains("stream accounts.streamAllIds");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.R2DBC_3, BootNames.R2DBC_4 })
    static class App {

        @Bean
        @BloomKeySource("account-stream")
        KeySource accountIds(AccountRepository accounts, PlatformTransactionManager transactions) {
            return RepositoryKeySource.of("accounts.streamAllIds", accounts::streamAllIds).inTransaction(transactions);
        }
    }
}
