package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigureAfter;
import org.springframework.util.ClassUtils;

/**
 * Boot silently ignores an ordering name that does not resolve, which would let a
 * bloom-guard auto-configuration run before the Redis, DataSource or metrics one it needs.
 * Every name given by string must resolve on the Boot generation the tests run on.
 */
class AutoConfigurationOrderingNamesTests {

    @Test
    void everyOrderingNameGivenByStringResolves() throws Exception {
        List<String> unresolved = new ArrayList<>();
        List<String> checked = new ArrayList<>();
        for (String autoConfiguration : imports()) {
            Class<?> type = ClassUtils.forName(autoConfiguration, getClass().getClassLoader());
            List<String> names = new ArrayList<>();
            AutoConfiguration annotation = type.getAnnotation(AutoConfiguration.class);
            if (annotation != null) {
                names.addAll(List.of(annotation.afterName()));
                names.addAll(List.of(annotation.beforeName()));
            }
            AutoConfigureAfter after = type.getAnnotation(AutoConfigureAfter.class);
            if (after != null) {
                names.addAll(List.of(after.name()));
            }
            for (String name : names) {
                checked.add(name);
                if (!ClassUtils.isPresent(name, getClass().getClassLoader())) {
                    unresolved.add(type.getSimpleName() + " -> " + name);
                }
            }
        }
        assertThat(checked).as("ordering names found").isNotEmpty();
        assertThat(unresolved).as("ordering names that resolve to no class").isEmpty();
    }

    /** The starter's own auto-configurations, whichever jar's imports file the class loader lists first. */
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
