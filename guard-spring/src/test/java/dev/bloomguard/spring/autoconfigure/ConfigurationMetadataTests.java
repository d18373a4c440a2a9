package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;

/**
 * The configuration metadata an IDE reads from the starter's jar: the file the
 * spring-boot-configuration-processor writes from {@link BloomGuardProperties}, merged with the
 * hand-written {@code additional-spring-configuration-metadata.json}. The processor cannot see
 * inside {@code bloom-guard.filters.*} (a map) nor {@code management.health.bloomguard.enabled}
 * (a condition, not a property class), so those are hand-written and go stale unless checked:
 * every name the binder accepts is compared with the metadata, both ways.
 *
 * <p>The files are read where {@link BloomGuardProperties} was loaded from: {@code target/classes}
 * in guard-spring's build, the starter jar itself when compat/boot4-starter-tests runs these tests.
 */
class ConfigurationMetadataTests {

    private static final String HEALTH_ENABLED = "management.health.bloomguard.enabled";

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void describesEveryBoundPropertyAndTheHealthSwitch() throws IOException {
        Map<String, String> described = descriptions(metadata("META-INF/spring-configuration-metadata.json"));

        Set<String> undescribed = new TreeSet<>();
        for (String name : boundNames()) {
            String description = described.get(name);
            if (description == null || description.isBlank()) {
                undescribed.add(name);
            }
        }
        assertThat(undescribed).as("bound properties without a description in spring-configuration-metadata.json")
                .isEmpty();
        assertThat(described.get(HEALTH_ENABLED)).as(HEALTH_ENABLED).isNotBlank();
    }

    @Test
    void describesNoPropertyTheBinderDoesNotAccept() throws IOException {
        Set<String> bound = boundNames();
        Set<String> stale = new TreeSet<>(descriptions(metadata("META-INF/spring-configuration-metadata.json")).keySet());
        stale.removeIf(name -> !name.startsWith("bloom-guard.") || bound.contains(name));
        assertThat(stale).as("bloom-guard.* metadata for properties BloomGuardProperties does not have").isEmpty();
    }

    @Test
    void mergesTheHandWrittenMetadataThroughTheAnnotationProcessor() throws IOException {
        Set<String> handWritten = descriptions(metadata("META-INF/additional-spring-configuration-metadata.json")).keySet();
        Set<String> merged = descriptions(metadata("META-INF/spring-configuration-metadata.json")).keySet();

        assertThat(handWritten).contains(HEALTH_ENABLED, "bloom-guard.filters.*.warmup.sql");
        assertThat(merged).containsAll(handWritten);
    }

    @Test
    void boundNamesFollowTheBindersDashedFormIntoNestedClassesAndTheFilterMap() {
        assertThat(boundNames()).contains("bloom-guard.enabled", "bloom-guard.redis-timeout",
                "bloom-guard.circuit-breaker.failure-threshold", "bloom-guard.filters",
                "bloom-guard.filters.*.expected-insertions", "bloom-guard.filters.*.warmup.fetch-size",
                "bloom-guard.filters.*.local-mirror.max-memory")
                .doesNotContain("bloom-guard.circuit-breaker", "bloom-guard.filters.*.warmup");
    }

    /** Every name the binder accepts under {@code bloom-guard}, with {@code *} for a key of a map. */
    private static Set<String> boundNames() {
        Set<String> names = new TreeSet<>();
        collect(BloomGuardProperties.class, "bloom-guard", names);
        return names;
    }

    /**
     * Walks the JavaBean properties as Boot's binder does: a property of one of bloom-guard's own
     * (non-enum) types is a nested group bound through its getter; a map of such a type binds
     * {@code <name>.*.<property>}; anything else with a setter is one property.
     */
    private static void collect(Class<?> type, String prefix, Set<String> names) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")) {
                continue;
            }
            String name = prefix + "." + dashed(property.getName());
            Class<?> propertyType = property.getPropertyType();
            if (isGroup(propertyType)) {
                collect(propertyType, name, names);
            }
            else if (Map.class.isAssignableFrom(propertyType)) {
                names.add(name);
                Class<?> valueType = ResolvableType.forMethodReturnType(property.getReadMethod()).asMap().resolveGeneric(1);
                if (valueType != null && isGroup(valueType)) {
                    collect(valueType, name + ".*", names);
                }
            }
            else if (property.getWriteMethod() != null) {
                names.add(name);
            }
        }
    }

    private static boolean isGroup(Class<?> type) {
        return !type.isEnum() && type.getName().startsWith("dev.bloomguard.");
    }

    /** {@code expectedInsertions} → {@code expected-insertions}, the canonical form Boot's metadata uses. */
    private static String dashed(String camelCase) {
        StringBuilder dashed = new StringBuilder();
        for (char c : camelCase.toCharArray()) {
            if (Character.isUpperCase(c)) {
                dashed.append('-').append(Character.toLowerCase(c));
            }
            else {
                dashed.append(c);
            }
        }
        return dashed.toString();
    }

    static Map<String, String> descriptions(JsonNode metadata) {
        Map<String, String> descriptions = new TreeMap<>();
        for (JsonNode property : metadata.path("properties")) {
            descriptions.put(property.path("name").asText(), property.path("description").asText(""));
        }
        return descriptions;
    }

    /** One metadata file of the starter: from its classes folder or, on Boot 4, from its jar; missing fails. */
    static JsonNode metadata(String file) throws IOException {
        Path location;
        try {
            location = Path.of(BloomGuardProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        }
        catch (URISyntaxException ex) {
            throw new IllegalStateException(ex);
        }
        if (Files.isDirectory(location)) {
            assertThat(location.resolve(file)).as("%s in %s", file, location).isRegularFile();
            return JSON.readTree(location.resolve(file).toFile());
        }
        try (FileSystem jar = FileSystems.newFileSystem(location)) {
            assertThat(jar.getPath(file)).as("%s in %s", file, location).isRegularFile();
            return JSON.readTree(Files.readAllBytes(jar.getPath(file)));
        }
    }
}
