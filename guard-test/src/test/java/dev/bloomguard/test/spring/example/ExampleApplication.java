package dev.bloomguard.test.spring.example;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;

/**
 * The application the README's testing examples start with a plain {@code @SpringBootTest}: one
 * guarded service and a filter {@code user}. It has no database, so the DataSource auto-configuration
 * that this module's test class path would run is left out (both generations' names).
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" })
@PropertySource("classpath:example-application.properties")
@Import(UserService.class)
public class ExampleApplication {
}
