package dev.bloomguard.minimal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What an application that adds only the starter (and Spring Boot) gets on its class path, read
 * from the list Maven resolved for this module's build. A dependency the starter needs for one
 * optional feature must be optional, so the application chooses it; one the engine needs only in
 * its tests must be test-scoped.
 */
class MinimalApplicationDependenciesTests {

    private static Set<String> dependencies;

    @BeforeAll
    static void readResolvedDependencies() throws IOException {
        String file = System.getProperty("runtimeDependencies");
        assertThat(file).as("system property runtimeDependencies, set by this module's pom").isNotNull();
        List<String> lines = Files.readAllLines(Path.of(file));
        // "   group:artifact:type:version:scope", sometimes followed by " -- module name".
        dependencies = lines.stream().map(String::strip).filter(line -> line.chars().filter(c -> c == ':').count() >= 4)
                .map(line -> line.split("\\s")[0].split(":"))
                .map(coordinates -> coordinates[0] + ":" + coordinates[1])
                .collect(Collectors.toSet());
    }

    @Test
    void listHoldsTheStarterAndWhatItNeeds() {
        assertThat(dependencies).contains("dev.bloomguard:bloom-guard-spring-boot-starter",
                "dev.bloomguard:bloom-guard-core", "io.lettuce:lettuce-core", "org.springframework:spring-aop",
                "org.springframework.boot:spring-boot-autoconfigure");
    }

    @Test
    void guavaIsNotForced() {
        assertThat(dependencies).filteredOn(dependency -> dependency.startsWith("com.google.guava:")).isEmpty();
    }

    @Test
    void caffeineIsNotForced() {
        assertThat(dependencies).doesNotContain("com.github.ben-manes.caffeine:caffeine");
    }

    @Test
    void micrometerIsNotForced() {
        // micrometer-observation is Spring Framework's own dependency (spring-context), not the starter's.
        assertThat(dependencies).doesNotContain("io.micrometer:micrometer-core", "io.micrometer:micrometer-registry-prometheus",
                "io.micrometer:micrometer-jakarta9");
    }

    @Test
    void optionalSpringModulesAreNotForced() {
        assertThat(dependencies).doesNotContain("org.springframework.boot:spring-boot-actuator",
                "org.springframework.boot:spring-boot-actuator-autoconfigure", "org.springframework.boot:spring-boot-health",
                "org.springframework:spring-jdbc", "com.zaxxer:HikariCP", "org.springframework.data:spring-data-jdbc",
                "org.springframework.data:spring-data-jpa", "org.springframework:spring-webmvc",
                "jakarta.servlet:jakarta.servlet-api", "org.springframework:spring-webflux");
    }

    @Test
    void testSupportIsNotForced() {
        assertThat(dependencies).filteredOn(dependency -> dependency.startsWith("dev.bloomguard:guard-embedded")
                || dependency.startsWith("io.zonky.test:") || dependency.startsWith("com.github.codemonstur:")
                || dependency.startsWith("org.postgresql:")).isEmpty();
    }
}
