package dev.bloomguard.spring.data.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.data.Rejections;

/** A Spring Data JPA repository (Hibernate on PostgreSQL) guarded on its interface. */
@SpringBootTest(classes = SpringDataJpaRepositoryTests.App.class, properties = {
        "bloom-guard.key-prefix=data-jpa",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.customer.expected-insertions=20000",
        "bloom-guard.filters.customer.warmup.sql=SELECT id FROM data_jpa_customers",
        "bloom-guard.filters.customer.warmup.blocking=true",
        "bloom-guard.filters.customer-name.expected-insertions=20000",
        "bloom-guard.filters.customer-name.warmup.sql=SELECT name FROM data_jpa_customers",
        "bloom-guard.filters.customer-name.warmup.blocking=true" })
class SpringDataJpaRepositoryTests {

    private static final int ROWS = 3_000;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("DROP TABLE IF EXISTS data_jpa_customers",
                "CREATE TABLE data_jpa_customers (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL)",
                "INSERT INTO data_jpa_customers (name) SELECT 'customer-' || g FROM generate_series(1, " + ROWS + ") g");
        RealServers.registerRedis(registry);
        RealServers.registerPostgres(registry);
    }

    @Autowired
    CustomerRepository customers;

    @Test
    void findByIdAndDerivedFinderPassPresentKeysAndRejectAbsentOnes() {
        for (long id = 1; id <= ROWS; id++) {
            assertThat(customers.findById(id)).isPresent();
        }
        for (int i = 1; i <= ROWS; i += 11) {
            assertThat(customers.findByName("customer-" + i)).hasSize(1);
        }
        assertThat(Rejections.count(LongStream.rangeClosed(1_000_001, 1_001_000).boxed().toList(), customers::findById))
                .isGreaterThan(950);
        assertThat(Rejections.count(LongStream.rangeClosed(1, 1_000).mapToObj(i -> "nobody-" + i).toList(),
                name -> customers.findByName(name).isEmpty() ? null : "found")).isGreaterThan(950);
    }

    @Test
    void entitiesSavedThroughTheRepositoryPassAtOnce() {
        for (int i = 0; i < 100; i++) {
            Customer saved = customers.save(new Customer("new-" + i));
            assertThat(saved.getId()).isGreaterThan(ROWS);
            assertThat(customers.findById(saved.getId())).isPresent();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.R2DBC_3, BootNames.R2DBC_4 })
    static class App {
    }
}
