package dev.bloomguard.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

class EmbeddedServersTests {

    @Test
    void redisServerAnswersAndComesBackEmptyAfterRestart() {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.isRunning()).isTrue();
            redis.restart();
            assertThat(redis.isRunning()).isTrue();
            redis.stop();
            assertThat(redis.isRunning()).isFalse();
        }
    }

    @Test
    void postgresServerRunsQueries() throws Exception {
        try (PostgresServer postgres = PostgresServer.start();
                Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT 41 + 1")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getInt(1)).isEqualTo(42);
        }
    }
}
