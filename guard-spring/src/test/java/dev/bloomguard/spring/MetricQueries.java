package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The Prometheus queries operators are given, in {@code docs/operations.md} ({@code ```promql}
 * blocks), in the Grafana dashboard ({@code docs/grafana/bloom-guard-dashboard.json}, every
 * {@code expr} and variable query) and in the alerting rules ({@code docs/alerts/bloom-guard.rules.yml}), held to a real scrape of a guarded application: every
 * {@code bloomguard_*} series they name must be in it, and every exact label matcher
 * ({@code outcome="bypassed"}) must match one of its samples. A renamed meter, a unit suffix
 * Prometheus adds ({@code _seconds}, {@code _total}) or a misspelt tag value fails here.
 */
final class MetricQueries {

    private static final Pattern PROMQL_BLOCK = Pattern.compile("```promql\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern SELECTOR = Pattern.compile("(bloomguard_[a-z_]+)(?:\\{([^}]*)\\})?");
    private static final Pattern EXACT_MATCHER = Pattern.compile("([a-z_]+)=\"([^\"$]*)\"");

    private MetricQueries() {
    }

    static void assertEveryQueryMatchesTheScrape(String scrape) throws IOException {
        List<String> samples = scrape.lines().filter(line -> !line.startsWith("#") && !line.isBlank()).toList();
        Set<String> names = new TreeSet<>();
        samples.forEach(line -> names.add(line.split("[{ ]", 2)[0]));

        List<String> queries = queries();
        assertThat(queries).as("PromQL queries in docs/operations.md and the Grafana dashboard").hasSizeGreaterThan(15);
        Set<String> wrong = new TreeSet<>();
        int selectors = 0;
        for (String query : queries) {
            Matcher selector = SELECTOR.matcher(query);
            while (selector.find()) {
                selectors++;
                String name = selector.group(1);
                if (!names.contains(name)) {
                    wrong.add(name + " (no such series)");
                    continue;
                }
                Matcher matcher = EXACT_MATCHER.matcher(selector.group(2) == null ? "" : selector.group(2));
                while (matcher.find()) {
                    String label = matcher.group(1) + "=\"" + matcher.group(2) + "\"";
                    boolean matched = samples.stream()
                            .anyMatch(line -> line.startsWith(name + "{") && line.contains(label));
                    if (!matched) {
                        wrong.add(name + "{" + label + "} (no sample has that label value)");
                    }
                }
            }
        }
        assertThat(selectors).isGreaterThan(20);
        assertThat(wrong).as("series the documented queries name that a guarded application does not publish;"
                + " bloomguard_ series it does publish: %s", names.stream().filter(n -> n.startsWith("bloomguard_")).toList())
                .isEmpty();
    }

    private static List<String> queries() throws IOException {
        Path root = ReadmeExamplesTests.projectRoot();
        List<String> queries = new ArrayList<>();
        Matcher block = PROMQL_BLOCK.matcher(Files.readString(root.resolve("docs/operations.md")));
        while (block.find()) {
            queries.addAll(block.group(1).lines().filter(line -> !line.isBlank() && !line.startsWith("#")).toList());
        }
        JsonNode dashboard = new ObjectMapper().readTree(root.resolve("docs/grafana/bloom-guard-dashboard.json").toFile());
        collect(dashboard, queries);
        OperatorFilesTests.rules().forEach(rule -> queries.add(String.valueOf(rule.get("expr"))));
        return queries;
    }

    /** Every {@code expr} of the dashboard's targets and the {@code query} of its template variables. */
    private static void collect(JsonNode node, List<String> queries) {
        node.fields().forEachRemaining(field -> {
            if ((field.getKey().equals("expr") || field.getKey().equals("query")) && field.getValue().isTextual()) {
                queries.add(field.getValue().asText());
            }
            else if (field.getValue().isContainerNode()) {
                collect(field.getValue(), queries);
            }
        });
        if (node.isArray()) {
            node.forEach(element -> collect(element, queries));
        }
    }
}
