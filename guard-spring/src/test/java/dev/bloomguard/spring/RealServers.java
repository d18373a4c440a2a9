package dev.bloomguard.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import dev.bloomguard.embedded.PostgresServer;
import dev.bloomguard.embedded.RedisServer;

/**
 * One real Redis and one real PostgreSQL for the whole test JVM, started on first use. Tests
 * keep out of each other's way with their own key prefixes and tables, not by mocking.
 */
public final class RealServers {

    private static RedisServer redis;
    private static PostgresServer postgres;

    private RealServers() {
    }

    public static synchronized RedisServer redis() {
        if (redis == null) {
            redis = RedisServer.start();
        }
        return redis;
    }

    public static synchronized PostgresServer postgres() {
        if (postgres == null) {
            postgres = PostgresServer.start();
            PostgresServer started = postgres;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "postgres-shutdown"));
        }
        return postgres;
    }

    /** Properties that point Spring Data Redis at the test Redis. */
    public static String[] redisProperties() {
        return new String[] { "spring.data.redis.host=" + redis().host(), "spring.data.redis.port=" + redis().port() };
    }

    /** Properties that point the primary DataSource at the test PostgreSQL. */
    public static String[] postgresProperties() {
        PostgresServer server = postgres();
        return new String[] { "spring.datasource.url=" + server.jdbcUrl(),
                "spring.datasource.username=" + server.username(), "spring.datasource.password=" + server.password() };
    }

    /** Runs DDL/DML statements on the test PostgreSQL. */
    public static void execute(String... statements) {
        try (Connection connection = postgres().dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Test SQL failed: " + ex.getMessage(), ex);
        }
    }
}
