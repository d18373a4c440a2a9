package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresExtensionTests {

    @RegisterExtension
    static final PostgresExtension POSTGRES = new PostgresExtension();

    @Test
    void theClassHasARealPostgresql() throws SQLException {
        assertThat(queryOne(POSTGRES.dataSource(), "SELECT 41 + 1")).isEqualTo(42);
    }

    @Test
    void theClassesServerIsTheOneTheWholeJvmShares() {
        assertThat(POSTGRES.server()).isSameAs(PostgresExtension.shared());
    }

    @Test
    void outsideTheClassTestsTheExtensionIsAClearError() {
        PostgresExtension unregistered = new PostgresExtension();

        assertThatThrownBy(unregistered::server).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("register it as a static field, or call PostgresExtension.shared()");
        assertThatThrownBy(unregistered::dataSource).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theServerOutlivesAClassForTheJvmsOtherClasses() throws SQLException {
        PostgresExtension extension = new PostgresExtension();
        // The extension does not look at its context: a class's lifecycle is driven by hand here.
        extension.beforeAll(null);
        DataSource during = extension.dataSource();

        extension.afterAll(null);

        assertThatThrownBy(extension::server).isInstanceOf(IllegalStateException.class);
        assertThat(queryOne(during, "SELECT 1")).as("the JVM's server still answers").isEqualTo(1);
    }

    private static int queryOne(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getInt(1);
        }
    }
}
