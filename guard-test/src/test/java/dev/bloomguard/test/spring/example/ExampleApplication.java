package dev.bloomguard.test.spring.example;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.PropertySource;

/**
 * The application the testing examples start, laid out as an application team lays out its own:
 * component scanning finds a guarded {@code @Service} and a {@code @RestController} in front of it,
 * with a filter {@code user}. A {@code @SpringBootTest} gets both; a {@code @WebMvcTest} slice gets
 * the controller alone, and imports the service. It has no database, so the DataSource
 * auto-configuration that this module's test class path would run is left out (both generations' names).
 */
@SpringBootApplication(excludeName = { "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" })
@PropertySource("classpath:example-application.properties")
public class ExampleApplication {
}
