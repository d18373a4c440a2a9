package dev.bloomguard.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Puts one scenario's section and target rows into a {@code docs/benchmarks.md} that the full
 * suite wrote, so that a scenario run alone ({@code --only}) replaces its own figures and
 * nothing else. A section lies between {@code <!-- id -->} and {@code <!-- /id -->}; a target
 * row is a row of the table under {@code ## Targets} whose first cell starts with the
 * scenario's prefix.
 */
final class ReportSections {

    private static final String TARGETS = "## Targets";
    private static final String TOTAL = "\nTotal run time:";

    private ReportSections() {
    }

    static String start(String id) {
        return "<!-- " + id + " -->";
    }

    static String end(String id) {
        return "<!-- /" + id + " -->";
    }

    /**
     * {@code document} with the section {@code id} replaced by {@code section}; a document
     * without it gets it before the full run's "Total run time" line, or at its end.
     */
    static String splice(String document, String id, String section) {
        String body = section.endsWith("\n") ? section : section + "\n";
        int from = document.indexOf(start(id));
        int to = document.indexOf(end(id));
        if (from >= 0 && to > from) {
            int after = to + end(id).length();
            if (after < document.length() && document.charAt(after) == '\n') {
                after++;
            }
            return document.substring(0, from) + body + document.substring(after);
        }
        int total = document.indexOf(TOTAL);
        if (total >= 0) {
            return document.substring(0, total + 1) + body + "\n" + document.substring(total + 1);
        }
        return document + (document.isEmpty() || document.endsWith("\n") ? "" : "\n") + "\n" + body;
    }

    /**
     * What follows the "Total run time" line of a file the suite wrote: sections written by hand,
     * which a new run keeps; empty when there is no such line or nothing after it.
     */
    static String handWritten(String document) {
        int total = document.indexOf(TOTAL);
        if (total < 0) {
            return "";
        }
        int lineEnd = document.indexOf('\n', total + 1);
        return lineEnd < 0 ? "" : document.substring(lineEnd + 1);
    }

    /**
     * {@code document} with its whole Targets section (from its heading to the next {@code ## }
     * heading) replaced by {@code section}.
     */
    static String targetsSection(String document, String section) {
        int from = document.indexOf(TARGETS + "\n");
        if (from < 0) {
            throw new IllegalArgumentException("the document has no " + TARGETS + " section");
        }
        int to = document.indexOf("\n## ", from + TARGETS.length());
        return document.substring(0, from) + section + (to < 0 ? "" : document.substring(to + 1));
    }

    /**
     * {@code document} whose Targets table has {@code targets} in place of its rows starting with
     * {@code prefix}, added at the table's end when it had none; a document without a Targets
     * table is returned as it is. In a table of several runs ({@link SuiteRuns#table}) the row
     * says that its figure comes from the one run of the scenario alone.
     */
    static String targets(String document, String prefix, List<Target> targets) {
        List<String> lines = List.of(document.split("\n", -1));
        int heading = lines.indexOf(TARGETS);
        String header = heading < 0 ? "" : lines.stream().skip(heading).filter(line -> line.startsWith("|")).findFirst().orElse("");
        boolean severalRuns = header.split("\\|", -1).length - 2 == 5;
        return rows(document, prefix, targets.stream().map(target -> severalRuns
                ? new String[] { target.name(), target.measured(), target.measured() + " (this scenario alone)", "—",
                        (target.met() ? "yes" : "**no**") + " (1 of 1)" }
                : target.cells()).toList());
    }

    private static String rows(String document, String prefix, List<String[]> rows) {
        List<String> lines = new ArrayList<>(Arrays.asList(document.split("\n", -1)));
        int heading = lines.indexOf(TARGETS);
        if (heading < 0) {
            return document;
        }
        int first = heading + 1;
        while (first < lines.size() && !lines.get(first).startsWith("|")) {
            first++;
        }
        int end = first;
        int insertAt = -1;
        while (end < lines.size() && lines.get(end).startsWith("|")) {
            if (lines.get(end).startsWith("| " + prefix)) {
                insertAt = insertAt < 0 ? end : insertAt;
                lines.remove(end);
            }
            else {
                end++;
            }
        }
        List<String> added = rows.stream().map(row -> "| " + String.join(" | ", row) + " |").toList();
        lines.addAll(insertAt < 0 ? end : insertAt, added);
        return String.join("\n", lines);
    }
}
