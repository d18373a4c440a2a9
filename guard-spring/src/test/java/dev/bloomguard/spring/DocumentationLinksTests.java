package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The README is a first read, not the manual: it stays under 250 lines and sends the reader to the
 * pages under {@code docs/} for the rest. That only works if every relative link it and those pages
 * hold leads somewhere: to a file that exists and, when the link names a heading
 * ({@code operations.md#sizing}), to a heading of that file with that anchor, as GitHub makes
 * anchors. A page moved or a heading renamed without the links following fails here.
 */
class DocumentationLinksTests {

    static final int README_MAX_LINES = 250;

    /** {@code ](target)} or {@code ](target "title")}: the second half of a link or an image. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Pattern FENCED_BLOCK = Pattern.compile("^```.*?^```", Pattern.MULTILINE | Pattern.DOTALL);

    private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");

    private static final Pattern HEADING = Pattern.compile("^#{1,6}[ \\t]+(.+?)[ \\t#]*$", Pattern.MULTILINE);

    @Test
    void readmeIsAFirstReadOfAtMost250Lines() throws IOException {
        Path readme = ReadmeExamplesTests.projectRoot().resolve("README.md");
        assertThat(Files.readAllLines(readme).size()).as("lines of README.md (move the rest into a page under docs/ and link it)")
                .isLessThanOrEqualTo(README_MAX_LINES);
    }

    /**
     * What a newcomer reads first, in this order: the pitch with the two commands (the demo, the
     * tests), whether it is released, the quick start with its prerequisites, and then at once what
     * the guard cannot see, before any other section.
     */
    @Test
    void readmeOpensWithThePitchTheQuickStartAndWhatTheGuardCannotSee() throws IOException {
        String readme = Files.readString(ReadmeExamplesTests.projectRoot().resolve("README.md"));
        List<String> sections = new ArrayList<>();
        Matcher section = Pattern.compile("^## (.+)$", Pattern.MULTILINE).matcher(readme);
        while (section.find()) {
            sections.add(section.group(1).trim());
        }
        assertThat(sections).as("the README's sections").startsWith("Quick start", "What the guard cannot see");

        String beforeQuickStart = readme.substring(0, readme.indexOf("\n## Quick start"));
        assertThat(beforeQuickStart).as("the pitch, above the quick start")
                .contains("java -jar demo-app/target/demo-app-").contains("./mvnw -B verify")
                .contains("Not released yet").contains("0.1.0-SNAPSHOT");
        String quickStart = readme.substring(readme.indexOf("\n## Quick start"),
                readme.indexOf("\n## What the guard cannot see"));
        assertThat(quickStart).as("the quick start's prerequisites")
                .contains("Prerequisites").contains("noeviction").contains("volatile-*").contains("allkeys-*")
                .contains("DataSource").contains("warmup.sql");
        assertThat(readme.toLowerCase(Locale.ROOT)).as("a README of a library never released")
                .doesNotContain("from 0.1").doesNotContain("upgrading from");
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndAHeadingThatExist() throws IOException {
        Path root = ReadmeExamplesTests.projectRoot();
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(file -> file.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        Map<Path, Set<String>> anchorsByFile = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path document : documents) {
            Matcher link = LINK.matcher(withoutCode(Files.readString(document)));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // https:, mailto: and other absolute addresses
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path linked = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
                String where = root.relativize(document) + ": (" + target + ")";
                if (!linked.startsWith(root) || !Files.exists(linked)) {
                    broken.add(where + " names no file");
                }
                else if (anchor != null && !anchor.isEmpty()) {
                    if (!linked.toString().endsWith(".md")) {
                        broken.add(where + " names a heading of a file that is not markdown");
                    }
                    else if (!anchorsByFile.computeIfAbsent(linked, DocumentationLinksTests::anchors).contains(anchor)) {
                        broken.add(where + " names no heading of " + root.relativize(linked) + "; its anchors: "
                                + anchorsByFile.get(linked));
                    }
                }
            }
        }
        assertThat(checked).as("relative links found in README.md, CHANGELOG.md and docs/").isGreaterThan(20);
        assertThat(broken).as("relative links that lead nowhere").isEmpty();
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertThat(anchors("""
                # Operating bloom-guard
                ## Redis: the ACL and `maxmemory-policy`
                ```bash
                # a comment, not a heading
                ```
                ## What the guard cannot see
                ### Rows written by someone else (`catch-up-sql`, `refresh`)
                ## Sizing
                ## Sizing
                """)).containsExactlyInAnyOrder("operating-bloom-guard", "redis-the-acl-and-maxmemory-policy",
                "what-the-guard-cannot-see", "rows-written-by-someone-else-catch-up-sql-refresh", "sizing", "sizing-1");
    }

    private static Set<String> anchors(Path markdown) {
        try {
            return anchors(Files.readString(markdown));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * GitHub's anchors: the heading's text in lower case, without punctuation (backticks, colons,
     * parentheses, ...), spaces made hyphens; a repeated heading gets {@code -1}, {@code -2}, ...
     */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new TreeSet<>();
        Map<String, Integer> seen = new HashMap<>();
        Matcher heading = HEADING.matcher(FENCED_BLOCK.matcher(markdown).replaceAll(""));
        while (heading.find()) {
            String anchor = heading.group(1).strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int times = seen.merge(anchor, 1, Integer::sum);
            anchors.add(times == 1 ? anchor : anchor + "-" + (times - 1));
        }
        return anchors;
    }

    /** Fenced blocks and code spans hold text that looks like links and headings but is neither. */
    private static String withoutCode(String markdown) {
        return CODE_SPAN.matcher(FENCED_BLOCK.matcher(markdown).replaceAll("")).replaceAll("");
    }
}
