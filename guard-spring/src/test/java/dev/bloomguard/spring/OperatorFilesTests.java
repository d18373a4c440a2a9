package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What operators import as is: the Prometheus alerting rules ({@code docs/alerts/bloom-guard.rules.yml})
 * and the Grafana dashboard. Every rule waits ({@code for:}), says how bad it is
 * ({@code severity}) and links a runbook section that exists in {@code docs/operations.md}; the
 * rules stay quiet on a normal deploy and under the default configuration; every panel filters by
 * the {@code application} and {@code instance} variables. That the series they name are ones a
 * guarded application publishes is {@link MetricQueries}' check, against a real scrape.
 */
class OperatorFilesTests {

    private static final Pattern SELECTOR = Pattern.compile("(bloomguard_[a-z_]+)(\\{[^}]*\\})?");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$", Pattern.MULTILINE);
    private static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");
    private static final String RUNBOOK = "https://github.com/bloom-guard/bloom-guard/blob/main/docs/operations.md#";

    @Test
    void everyRuleWaitsSaysHowBadItIsAndLinksARunbookSectionThatExists() throws IOException {
        Set<String> anchors = anchors(Files.readString(ReadmeExamplesTests.projectRoot().resolve("docs/operations.md")));
        List<Map<String, Object>> rules = rules();
        assertThat(rules).hasSizeGreaterThanOrEqualTo(8);
        Set<String> names = new TreeSet<>();
        for (Map<String, Object> rule : rules) {
            String name = String.valueOf(rule.get("alert"));
            assertThat(names.add(name)).as("alert names are unique: %s", name).isTrue();
            assertThat(name).startsWith("BloomGuard");
            assertThat(String.valueOf(rule.get("expr"))).as("%s expr", name).contains("bloomguard_");
            assertThat(duration(rule.get("for"))).as("%s for", name).isPositive();
            Map<?, ?> labels = (Map<?, ?>) rule.get("labels");
            assertThat(labels).as("%s labels", name).isNotNull();
            assertThat(SEVERITIES).as("%s severity", name).contains(String.valueOf(labels.get("severity")));
            Map<?, ?> annotations = (Map<?, ?>) rule.get("annotations");
            assertThat(annotations).as("%s annotations", name).isNotNull();
            assertThat(annotations.containsKey("summary")).as("%s summary", name).isTrue();
            String runbook = String.valueOf(annotations.get("runbook_url"));
            assertThat(runbook).as("%s runbook", name).startsWith(RUNBOOK);
            assertThat(anchors).as("%s runbook section in docs/operations.md", name)
                    .contains(runbook.substring(RUNBOOK.length()));
        }
    }

    /**
     * A warmup bypasses as not-ready for minutes; a filter with the default {@code rebuild.interval}
     * of 0 is never rebuilt, so its age grows for ever; a load that the next one repairs is not a
     * problem. None of them may fire.
     */
    @Test
    void theRulesAreQuietOnANormalDeployAndUnderTheDefaultConfiguration() {
        for (Map<String, Object> rule : rules()) {
            String name = String.valueOf(rule.get("alert"));
            String expr = String.valueOf(rule.get("expr"));
            if (expr.contains("reason=\"not-ready\"")) {
                assertThat(duration(rule.get("for"))).as("%s waits longer than a warmup", name)
                        .isGreaterThanOrEqualTo(Duration.ofMinutes(30));
            }
            if (expr.contains("bloomguard_filter_age_seconds")) {
                assertThat(expr.replaceAll("\\s+", " ")).as("%s compares the age with the filter's own interval, and only"
                        + " where there is one", name)
                        .contains("> 2 * max by (application, filter) (bloomguard_filter_rebuild_interval_seconds)")
                        .endsWith("and max by (application, filter) (bloomguard_filter_rebuild_interval_seconds) > 0");
            }
            if (expr.contains("outcome=\"failed\"") || expr.contains("outcome=\"refused\"")) {
                assertThat(expr).as("%s is silenced by a load that succeeded since", name)
                        .contains("unless").contains("outcome=\"swapped\"");
            }
        }
        assertThat(rules()).extracting(rule -> String.valueOf(rule.get("expr")))
                .anyMatch(expr -> expr.contains("bloomguard_filter_age_seconds"))
                .anyMatch(expr -> expr.contains("reason=\"not-ready\""));
    }

    @Test
    void theDashboardHasApplicationAndInstanceVariablesAndEveryQueryFiltersByThem() throws IOException {
        JsonNode dashboard = new ObjectMapper()
                .readTree(ReadmeExamplesTests.projectRoot().resolve("docs/grafana/bloom-guard-dashboard.json").toFile());
        List<String> variables = new ArrayList<>();
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            variables.add(variable.path("name").asText());
            if (variable.path("type").asText().equals("query")) {
                assertThat(variable.path("includeAll").asBoolean()).as("%s offers All", variable.path("name")).isTrue();
                assertThat(variable.path("allValue").asText()).as("%s All matches a missing label", variable.path("name"))
                        .isEqualTo(".*");
            }
        }
        assertThat(variables).contains("application", "instance", "filter");

        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            panel.path("targets").forEach(target -> expressions.add(target.path("expr").asText()));
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("name").asText().equals("filter")) {
                expressions.add(variable.path("query").asText());
            }
        }
        assertThat(expressions).hasSizeGreaterThan(15);
        List<String> unfiltered = new ArrayList<>();
        for (String expression : expressions) {
            Matcher selector = SELECTOR.matcher(expression);
            while (selector.find()) {
                String matchers = selector.group(2) == null ? "" : selector.group(2);
                if (!matchers.contains("application=~\"$application\"") || !matchers.contains("instance=~\"$instance\"")) {
                    unfiltered.add(selector.group());
                }
            }
        }
        assertThat(unfiltered).as("selectors that do not filter by $application and $instance").isEmpty();
    }

    /** The rules of {@code docs/alerts/bloom-guard.rules.yml}, each a map of its fields. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rules() {
        Path file = ReadmeExamplesTests.projectRoot().resolve("docs/alerts/bloom-guard.rules.yml");
        Map<String, Object> document;
        try {
            document = new Yaml().load(Files.readString(file));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) document.get("groups")) {
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return rules;
    }

    /** A Prometheus duration of one unit: {@code 30s}, {@code 15m}, {@code 1h}. */
    private static Duration duration(Object value) {
        String text = String.valueOf(value);
        Matcher matcher = Pattern.compile("(\\d+)([smhd])").matcher(text);
        assertThat(matcher.matches()).as("a Prometheus duration: %s", text).isTrue();
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    /** GitHub's anchors of the headings of a Markdown document. */
    private static Set<String> anchors(String markdown) {
        Set<String> anchors = new TreeSet<>();
        Matcher heading = HEADING.matcher(markdown);
        while (heading.find()) {
            anchors.add(heading.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
        }
        return anchors;
    }
}
