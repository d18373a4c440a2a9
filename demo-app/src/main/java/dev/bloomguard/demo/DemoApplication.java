package dev.bloomguard.demo;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A user service whose lookups are guarded by bloom-guard. Runs with nothing installed: without
 * {@code spring.data.redis.host} it starts its own Redis ({@link EmbeddedRedisEnvironmentPostProcessor}),
 * and without {@code spring.datasource.url} it uses an in-memory H2 database seeded by {@link UserTableSeeder}.
 */
@SpringBootApplication
public class DemoApplication {

    public static void main(String[] args) {
        SpringApplication.run(DemoApplication.class, args);
    }

    /** Static: a post-processor must exist before the DataSource it wraps. */
    @Bean
    static DatabaseStatements databaseStatements() {
        return new DatabaseStatements();
    }
}
