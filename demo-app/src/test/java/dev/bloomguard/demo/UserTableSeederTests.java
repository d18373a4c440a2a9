package dev.bloomguard.demo;

import static org.assertj.core.api.Assertions.assertThat;

import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.bloomguard.testsupport.PostgresExtension;

/** The seeding and the id sequence on both databases the demo supports, each a real server. */
class UserTableSeederTests {

    private static final long SEEDED = 1_000;

    @RegisterExtension
    static final PostgresExtension POSTGRES = new PostgresExtension();

    @Test
    void seedsH2OnceAndCreatesUsersAboveTheSeededIds() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:seeder-test;DB_CLOSE_DELAY=-1");
        h2.setUser("sa");
        seedsOnceAndCreatesUsersAboveTheSeededIds(h2);
    }

    @Test
    void seedsPostgresqlOnceAndCreatesUsersAboveTheSeededIds() throws Exception {
        seedsOnceAndCreatesUsersAboveTheSeededIds(POSTGRES.dataSource());
    }

    private static void seedsOnceAndCreatesUsersAboveTheSeededIds(DataSource dataSource) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);

        new UserTableSeeder(dataSource, jdbc, SEEDED).afterPropertiesSet();

        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM users", Long.class)).isEqualTo(SEEDED);
        assertThat(jdbc.queryForObject("SELECT MIN(id) FROM users", Long.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT MAX(id) FROM users", Long.class)).isEqualTo(SEEDED);

        jdbc.update("INSERT INTO users (name, email) VALUES (?, ?)", "Ada", "ada@example.com");
        assertThat(jdbc.queryForObject("SELECT id FROM users WHERE email = 'ada@example.com'", Long.class))
                .as("a user created after seeding gets an id above the seeded ones").isEqualTo(SEEDED + 1);

        new UserTableSeeder(dataSource, jdbc, 5 * SEEDED).afterPropertiesSet();

        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM users", Long.class)).as("a table with rows is not seeded")
                .isEqualTo(SEEDED + 1);
    }
}
