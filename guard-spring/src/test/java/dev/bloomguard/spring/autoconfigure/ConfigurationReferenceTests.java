package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import dev.bloomguard.spring.ReadmeExamplesTests;

/**
 * {@code docs/configuration.md} is rendered from the configuration metadata the starter's jar
 * carries (the processor's file merged with the hand-written one), so the reference cannot drift
 * from what the binder accepts: {@link ConfigurationMetadataTests} holds the metadata to the
 * properties classes, this test holds the document to the metadata. A property added, renamed or
 * re-described without regenerating the document fails here, and the failure says how to
 * regenerate it: run this test with {@code -Dbloomguard.regenerate=true}, or copy the expected
 * file it wrote under {@code target/}.
 *
 * <p>It also reads every {@code bloom-guard.*} name the README, the changelog and the other
 * documents mention: a name the metadata does not know (misspelt, renamed, never built) fails.
 */
class ConfigurationReferenceTests {

    static final String REGENERATE = "./mvnw -q -pl guard-spring -am test -Dtest=ConfigurationReferenceTests"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dbloomguard.regenerate=true";

    private static final Pattern PROPERTY_MENTION = Pattern.compile(
            "(?:bloom-guard|management\\.health\\.bloomguard|management\\.endpoint\\.bloomguard)(?:\\.[a-z0-9<>*-]+)*");

    @Test
    void documentIsTheOneTheMetadataRenders() throws IOException {
        String expected = render(ConfigurationMetadataTests.metadata("META-INF/spring-configuration-metadata.json"));
        Path document = ReadmeExamplesTests.projectRoot().resolve("docs/configuration.md");
        if (Boolean.getBoolean("bloomguard.regenerate")) {
            Files.writeString(document, expected);
        }
        Path rendered = Path.of("target", "configuration.md").toAbsolutePath();
        Files.createDirectories(rendered.getParent());
        Files.writeString(rendered, expected);
        String actual = Files.exists(document) ? Files.readString(document) : "";
        assertThat(actual).as("docs/configuration.md differs from the configuration metadata; regenerate it:%n  %s%n"
                + "or: cp %s %s", REGENERATE, rendered, document).isEqualTo(expected);
    }

    @Test
    void everyPropertyTheDocumentsNameExists() throws IOException {
        Set<String> known = ConfigurationMetadataTests
                .descriptions(ConfigurationMetadataTests.metadata("META-INF/spring-configuration-metadata.json"))
                .keySet();
        Path root = ReadmeExamplesTests.projectRoot();
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(file -> file.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        Set<String> unknown = new TreeSet<>();
        int mentions = 0;
        for (Path document : documents) {
            Matcher mention = PROPERTY_MENTION.matcher(Files.readString(document));
            while (mention.find()) {
                String name = mention.group().replaceAll("\\.+$", "")
                        .replaceFirst("^bloom-guard\\.filters\\.[^.]+\\.", "bloom-guard.filters.*.")
                        .replaceFirst("^bloom-guard\\.filters\\.[^.*]+$", "bloom-guard.filters");
                // A file named after the project (docs/alerts/bloom-guard.rules.yml) is no property.
                if (name.equals("bloom-guard") || name.endsWith(".*") && !name.contains(".*.")
                        || name.matches(".*\\.(yml|yaml|json|md)")) {
                    continue;
                }
                mentions++;
                if (!known.contains(name) && known.stream().noneMatch(property -> property.startsWith(name + "."))) {
                    unknown.add(root.relativize(document) + ": " + mention.group());
                }
            }
        }
        assertThat(mentions).as("property names found in the documents").isGreaterThan(50);
        assertThat(unknown).as("property names in the documents that the configuration metadata does not have")
                .isEmpty();
    }

    /** The whole document: a heading, how it is made, one table row per property. */
    static String render(JsonNode metadata) {
        Map<String, String> values = new LinkedHashMap<>();
        for (JsonNode hint : metadata.path("hints")) {
            List<String> allowed = new ArrayList<>();
            hint.path("values").forEach(value -> allowed.add("`" + value.path("value").asText() + "`"));
            values.put(hint.path("name").asText(), String.join(", ", allowed));
        }
        List<JsonNode> properties = new ArrayList<>();
        metadata.path("properties").forEach(properties::add);
        properties.sort(Comparator.comparing((JsonNode property) -> !property.path("name").asText().startsWith("bloom-guard."))
                .thenComparing(property -> property.path("name").asText()));

        StringBuilder document = new StringBuilder("""
                # Configuration reference

                Every property of bloom-guard's starter, as its jar describes them to Spring Boot and to IDEs
                (`META-INF/spring-configuration-metadata.json`). In a name, `*` is a filter's name, the one
                `@BloomGuard(filter = ...)` uses: `bloom-guard.filters.user.fpp`. An unknown name under
                `bloom-guard.` fails startup. Durations take `50ms`, `10s`, `6h`; sizes take `64MB` (2^20 bytes).

                This file is generated by `ConfigurationReferenceTests` from that metadata, and the test
                fails when the two differ. Do not edit it; after changing a property (its javadoc is its
                description), regenerate it:

                ```bash
                %s
                ```

                | property | type | default | description |
                |---|---|---|---|
                """.formatted(REGENERATE));
        for (JsonNode property : properties) {
            String name = property.path("name").asText();
            String type = simpleType(property.path("type").asText());
            if (values.containsKey(name)) {
                type = type + ": " + values.get(name);
            }
            JsonNode defaultValue = property.path("defaultValue");
            String shownDefault = defaultValue.isMissingNode() || defaultValue.isNull() || defaultValue.asText().isEmpty()
                    ? "" : "`" + defaultValue.asText() + "`";
            document.append("| `").append(name).append("` | ").append(type).append(" | ").append(shownDefault)
                    .append(" | ").append(cell(property.path("description").asText(""))).append(" |\n");
        }
        return document.toString();
    }

    /** {@code java.util.Map<java.lang.String,a.b.Outer$Filter>} → {@code Map<String, Filter>}. */
    private static String simpleType(String type) {
        return type.replaceAll("[a-z0-9_.]+\\.(?=[A-Z])", "").replaceAll("[A-Za-z0-9_]+\\$", "").replace(",", ", ");
    }

    private static String cell(String text) {
        return text.replaceAll("\\s+", " ").replace("|", "\\|").strip();
    }
}
