package dev.bloomguard.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

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
    void aClosedRedisServerLeavesNeitherItsLogNorItsDataDirectoryBehind() throws Exception {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        RedisServer redis = RedisServer.start();
        String itsPrefix = "bloomguard-redis-" + redis.port() + "-";
        List<Path> whileRunning = filesNamed(temporary, itsPrefix);
        redis.close();
        List<Path> afterClose = filesNamed(temporary, itsPrefix);
        assertThat(whileRunning).as("files of servers on its port while it runs").hasSizeGreaterThanOrEqualTo(2);
        assertThat(whileRunning).as("its log and data directory, gone after close")
                .hasSize(afterClose.size() + 2).containsAll(afterClose);
    }

    private static List<Path> filesNamed(Path directory, String prefix) throws IOException {
        try (Stream<Path> paths = Files.list(directory)) {
            return paths.filter(path -> path.getFileName().toString().startsWith(prefix)).toList();
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
