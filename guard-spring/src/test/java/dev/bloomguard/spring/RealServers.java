package dev.bloomguard.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import org.springframework.test.context.DynamicPropertyRegistry;

import dev.bloomguard.embedded.PostgresServer;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.PostgresExtension;

/**
 * One real Redis and one real PostgreSQL for the whole test JVM, started on first use. Tests
 * keep out of each other's way with their own key prefixes and tables, not by mocking. The
 * PostgreSQL is {@link PostgresExtension#shared()}: a class that registers that extension gets this same server.
 */
public final class RealServers {

    private static RedisServer redis;

    private RealServers() {
    }

    public static synchronized RedisServer redis() {
        if (redis == null) {
            redis = RedisServer.start();
        }
        return redis;
    }

    public static PostgresServer postgres() {
        return PostgresExtension.shared();
    }

    /** Properties that point Spring Data Redis at the test Redis. */
    public static String[] redisProperties() {
        return new String[] { "spring.data.redis.host=" + redis().host(), "spring.data.redis.port=" + redis().port() };
    }

    /** Points Spring Data Redis at the test Redis, for {@code @DynamicPropertySource} methods. */
    public static void registerRedis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> redis().host());
        registry.add("spring.data.redis.port", () -> redis().port());
    }

    /** Fills the placeholders REDIS_HOST and REDIS_PORT of the clients/*.yml test resources with the test Redis. */
    public static void registerRedisPlaceholders(DynamicPropertyRegistry registry) {
        registry.add("REDIS_HOST", () -> redis().host());
        registry.add("REDIS_PORT", () -> redis().port());
    }

    /** Points the primary DataSource at the test PostgreSQL, for {@code @DynamicPropertySource} methods. */
    public static void registerPostgres(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> postgres().jdbcUrl());
        registry.add("spring.datasource.username", () -> postgres().username());
        registry.add("spring.datasource.password", () -> postgres().password());
    }

    /**
     * Points Spring Boot's R2DBC connection factory at the test PostgreSQL, for the Spring Data tests,
     * whose class path has R2DBC (its auto-configuration needs a URL even where no test uses it).
     */
    public static void registerR2dbc(DynamicPropertyRegistry registry) {
        registry.add("spring.r2dbc.url", () -> "r2dbc:postgresql://localhost:" + postgres().port() + "/postgres");
        registry.add("spring.r2dbc.username", () -> postgres().username());
        registry.add("spring.r2dbc.password", () -> postgres().password());
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
