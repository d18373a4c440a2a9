package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every Java or Kotlin example in the README and in {@code docs/*.md} is code that a test runs:
 * each {@code ```java} or {@code ```kotlin} block must appear, line for line (indentation aside),
 * in a source file of the project's modules, where a test compiles and exercises it. An example
 * edited in the documentation alone fails here.
 */
public class ReadmeExamplesTests {

    private static final Pattern CODE_BLOCK = Pattern.compile("```(?:java|kotlin)\\n(.*?)```", Pattern.DOTALL);

    private static final Pattern TESTED_YAML = Pattern.compile("<!-- the test resource (\\S+) -->\\n```yaml\\n(.*?)```",
            Pattern.DOTALL);

    @Test
    void everyCodeExampleInTheReadmeIsInTheSourcesTheTestsRun() throws IOException {
        Path root = projectRoot();
        List<String> examples = new ArrayList<>();
        Matcher block = CODE_BLOCK.matcher(Files.readString(root.resolve("README.md")));
        while (block.find()) {
            examples.add(normalized(block.group(1)));
        }
        assertThat(examples).as("Java and Kotlin examples in the README").hasSizeGreaterThanOrEqualTo(5);
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            for (Path doc : docs.filter(file -> file.toString().endsWith(".md")).sorted().toList()) {
                block = CODE_BLOCK.matcher(Files.readString(doc));
                while (block.find()) {
                    examples.add(normalized(block.group(1)));
                }
            }
        }
        List<String> sources;
        try (Stream<Path> files = Files.walk(root)) {
            sources = files.filter(file -> file.toString().endsWith(".java") || file.toString().endsWith(".kt"))
                    .filter(file -> !file.toString().contains("/target/"))
                    .map(ReadmeExamplesTests::read).map(ReadmeExamplesTests::normalized).toList();
        }
        for (String example : examples) {
            assertThat(sources).as("a source file containing the documentation's example%n%s", example)
                    .anyMatch(source -> source.contains(example));
        }
    }

    /**
     * A YAML block the README or a page of {@code docs/} introduces with
     * {@code <!-- the test resource PATH -->} is that file, byte for byte, so the configuration it
     * shows is the one a test boots with.
     */
    @Test
    void everyYamlExampleNamedAsATestResourceIsThatResource() throws IOException {
        Path root = projectRoot();
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(file -> file.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        int found = 0;
        for (Path document : documents) {
            Matcher block = TESTED_YAML.matcher(Files.readString(document));
            while (block.find()) {
                found++;
                Path resource = root.resolve(block.group(1));
                assertThat(resource).as("the test resource of %s", root.relativize(document)).isRegularFile();
                assertThat(block.group(2)).as("the copy of %s in %s", block.group(1), root.relativize(document))
                        .isEqualTo(Files.readString(resource));
            }
        }
        assertThat(found).as("YAML examples in the README and docs/ that name their test resource")
                .isGreaterThanOrEqualTo(2);
    }

    /** The checkout's root: the nearest folder above the working directory with the README and the parent pom. */
    public static Path projectRoot() {
        for (Path folder = Path.of("").toAbsolutePath(); folder != null; folder = folder.getParent()) {
            if (Files.exists(folder.resolve("README.md")) && Files.exists(folder.resolve("guard-spring/pom.xml"))) {
                return folder;
            }
        }
        throw new IllegalStateException("No project root with README.md above " + Path.of("").toAbsolutePath());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Lines trimmed, blank lines dropped: indentation differs between a README block and a class body. */
    private static String normalized(String code) {
        return code.lines().map(String::strip).filter(line -> !line.isEmpty()).reduce("", (a, b) -> a + b + "\n");
    }
}
