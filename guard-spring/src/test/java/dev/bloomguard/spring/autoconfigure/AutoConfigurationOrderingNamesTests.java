package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigureAfter;
import org.springframework.boot.autoconfigure.AutoConfigureBefore;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.classreading.SimpleMetadataReaderFactory;
import org.springframework.util.ClassUtils;

import dev.bloomguard.spring.BootNames;

/**
 * Boot silently ignores an ordering name that does not resolve, which would let a bloom-guard
 * auto-configuration run before the Redis, DataSource or metrics one it needs. The starter
 * names each Boot class it orders against by its Spring Boot 3 and its Spring Boot 4 name; on
 * either generation at least one name of every such pair must resolve. Annotations are read
 * the way Boot reads them, from the class files, without loading the classes.
 */
class AutoConfigurationOrderingNamesTests {

    /** Spring Boot 3 name to Spring Boot 4 name, for every Boot class the starter orders against. */
    private static final Map<String, String> BOOT_4_NAME = Map.of(
            BootNames.REDIS_3, BootNames.REDIS_4,
            BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4,
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration");

    /** Boot classes with the same name in both generations. */
    private static final Set<String> UNMOVED = Set.of(
            "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration");

    @Test
    void atLeastOneNameOfEveryGenerationPairResolves() throws IOException {
        List<String> problems = new ArrayList<>();
        List<String> checked = new ArrayList<>();
        for (String autoConfiguration : imports()) {
            Set<String> names = orderingNames(autoConfiguration);
            for (String name : names) {
                checked.add(name);
                List<String> pair = pairOf(name);
                if (pair.isEmpty()) {
                    problems.add(autoConfiguration + " orders against " + name
                            + ", which is in no Boot 3/Boot 4 pair: add it and its twin to this test");
                    continue;
                }
                if (!names.containsAll(pair)) {
                    problems.add(autoConfiguration + " names " + name + " but not its twin in " + pair);
                }
                if (pair.stream().noneMatch(AutoConfigurationOrderingNamesTests::resolves)) {
                    problems.add(autoConfiguration + " -> " + pair + ": no name resolves on this generation");
                }
            }
        }
        assertThat(checked).as("ordering names found").isNotEmpty();
        assertThat(problems).isEmpty();
    }

    @Test
    void theNamesOfTheRunningGenerationAreTheOnesThatResolve() {
        boolean boot4 = BootNames.isBoot4();
        BOOT_4_NAME.forEach((boot3Name, boot4Name) -> {
            assertThat(resolves(boot3Name)).as(boot3Name).isEqualTo(!boot4);
            assertThat(resolves(boot4Name)).as(boot4Name).isEqualTo(boot4);
        });
        UNMOVED.forEach(name -> assertThat(resolves(name)).as(name).isTrue());
    }

    private static List<String> pairOf(String name) {
        if (UNMOVED.contains(name)) {
            return List.of(name);
        }
        if (BOOT_4_NAME.containsKey(name)) {
            return List.of(name, BOOT_4_NAME.get(name));
        }
        return BOOT_4_NAME.entrySet().stream().filter(entry -> entry.getValue().equals(name))
                .map(entry -> List.of(entry.getKey(), name)).findFirst().orElse(List.of());
    }

    private static boolean resolves(String name) {
        return ClassUtils.isPresent(name, AutoConfigurationOrderingNamesTests.class.getClassLoader());
    }

    private Set<String> orderingNames(String autoConfiguration) throws IOException {
        AnnotationMetadata metadata = new SimpleMetadataReaderFactory(getClass().getClassLoader())
                .getMetadataReader(autoConfiguration).getAnnotationMetadata();
        Set<String> names = new LinkedHashSet<>();
        names.addAll(stringArray(metadata, AutoConfiguration.class, "afterName"));
        names.addAll(stringArray(metadata, AutoConfiguration.class, "beforeName"));
        names.addAll(stringArray(metadata, AutoConfigureAfter.class, "name"));
        names.addAll(stringArray(metadata, AutoConfigureBefore.class, "name"));
        return names;
    }

    private static List<String> stringArray(AnnotationMetadata metadata, Class<?> annotation, String attribute) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(annotation.getName());
        return attributes == null ? List.of() : List.of((String[]) attributes.get(attribute));
    }

    /** The starter's own auto-configurations, from every imports file on the class path. */
    private List<String> imports() throws IOException {
        List<String> ours = new ArrayList<>();
        var files = getClass().getClassLoader()
                .getResources("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
        while (files.hasMoreElements()) {
            try (InputStream in = files.nextElement().openStream()) {
                new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::trim)
                        .filter(line -> line.startsWith("dev.bloomguard.")).forEach(ours::add);
            }
        }
        assertThat(ours).as("the starter's auto-configurations").isNotEmpty();
        return ours;
    }
}
