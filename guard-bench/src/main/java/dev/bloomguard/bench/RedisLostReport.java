package dev.bloomguard.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;

import dev.bloomguard.bench.RedisLostFigures.Counts;
import dev.bloomguard.bench.RedisLostFigures.Phase;
import dev.bloomguard.bench.RedisLostFigures.Result;

/**
 * The "Redis lost under attack" section of {@code docs/benchmarks.md}, its chart and its target,
 * from the results of one {@link RedisLostScenario} run.
 */
final class RedisLostReport {

    /** The command that runs this scenario alone, as the section quotes it. */
    static final String ALONE_COMMAND =
            "./mvnw -q -Pbench -pl demo-app,guard-bench -am verify -DskipTests -Dbench.args=\"--only redis-lost\"";

    /** The chart, next to {@code docs/benchmarks.md}. */
    static final String CHART = "bench-redis-lost.png";

    /** Every target row this scenario owns starts with this. */
    static final String TARGET_PREFIX = "redis lost";

    /**
     * With the budget, the database while Redis is down sees at most this many times
     * {@code max-rate}: the bucket's rate plus its one-second burst spread over the phase, with
     * room for counting at the phase's edges (as {@code RedisLostUnderAttackTests} allows).
     */
    static final double TARGET_BUDGET_FACTOR = 1.5;

    private final RedisLostScenario.Settings settings;
    private final List<Result> results;

    RedisLostReport(RedisLostScenario.Settings settings, List<Result> results) {
        if (results.size() != RedisLostScenario.CONFIGURATIONS.size()) {
            throw new IllegalArgumentException("one result per configuration, not " + results.size());
        }
        this.settings = settings;
        this.results = List.copyOf(results);
    }

    private Result budget() {
        return results.get(2);
    }

    List<Target> targets() {
        double queries = budget().median(true, Phase::queriesPerSecond);
        double limit = TARGET_BUDGET_FACTOR * RedisLostScenario.MAX_RATE;
        return List.of(new Target(String.format(Locale.ROOT, "%s with a budget of %d/s: database queries/s while Redis is"
                + " down at most %.1f× max-rate", TARGET_PREFIX, RedisLostScenario.MAX_RATE, TARGET_BUDGET_FACTOR), queries,
                String.format(Locale.ROOT, "%,.0f/s (%.2f× max-rate)", queries, queries / RedisLostScenario.MAX_RATE),
                queries <= limit));
    }

    /** Draws the chart into {@code docs}: queries/s and real-user success, Redis up and down, per configuration. */
    void chart(Path docs) throws IOException {
        List<String> groups = results.stream().map(Result::shortLabel).toList();
        double[][] queries = results.stream().map(result -> new double[] {
                result.median(false, Phase::queriesPerSecond), result.median(true, Phase::queriesPerSecond) })
                .toArray(double[][]::new);
        double[][] success = results.stream().map(result -> new double[] {
                100 * result.median(false, Phase::realSuccess), 100 * result.median(true, Phase::realSuccess) })
                .toArray(double[][]::new);
        Charts.groupedPanels(docs.resolve(CHART), "Redis lost under attack: database load and real users served", groups,
                List.of("Redis up", "Redis stopped"), List.of(new Charts.GroupedPanel("database queries", "per s", queries, 0),
                        new Charts.GroupedPanel("real-user lookups answered 200", "%", success, 100)));
    }

    /**
     * The section, between {@code <!-- redis-lost -->} markers so that a run of this scenario
     * alone can replace it in a file the full suite wrote.
     *
     * @param alone true when run with {@code --only redis-lost}: the section then names its own
     *     command and date, which differ from the file's header
     */
    String section(boolean alone) {
        StringBuilder text = new StringBuilder();
        text.append(ReportSections.start(RedisLostScenario.MARKER)).append('\n')
                .append("## Redis lost under attack: the bypass budget\n\n");
        if (alone) {
            text.append("Produced alone by `").append(ALONE_COMMAND).append("` on ").append(LocalDate.now())
                    .append(" (the rest of this file comes from the run named at the top).\n\n");
        }
        else {
            text.append("Part of the full run above; `").append(ALONE_COMMAND).append("` reruns this section alone.\n\n");
        }
        Result off = results.get(0);
        Result open = results.get(1);
        text.append(String.format(Locale.ROOT, "The demo's own jar (H2 database of %,d users) runs three times side by side,"
                + " each on a `redis-server` the benchmark starts, and the instances take turns under the same traffic: %d"
                + " attacker threads send random absent ids as fast as they are answered while %d real users look up"
                + " existing ids, one every %d ms each; after %d s of traffic not counted and %d s with Redis up, Redis is"
                + " stopped for %d s, then started again empty and the guarded demos re-warm before the next round. Each figure is"
                + " the median of %d rounds, after one not counted, with [min–max]; the real users' success is the share"
                + " of their lookups answered 200, a 503 (shed) or any error counting against it.",
                UnderAttackScenario.USERS, settings.attackThreads(), settings.realThreads(), settings.realPauseMillis(),
                settings.settleMillis() / 1000, settings.upMillis() / 1000, settings.downMillis() / 1000,
                settings.rounds()))
                .append(String.format(Locale.ROOT, " Once Redis is gone the guard failing open lets the whole attack"
                        + " through (%,.0f database queries/s, against %,.0f without any guard), while the budget holds the"
                        + " database to about `max-rate` (%,.0f/s) and answers the rest 503, real users included: it"
                        + " protects the database, not the real users' share of the budget, which the attackers outnumber.",
                        open.median(true, Phase::queriesPerSecond), off.median(true, Phase::queriesPerSecond),
                        budget().median(true, Phase::queriesPerSecond)))
                .append(String.format(Locale.ROOT, " Clients, the three demos, their Redis servers and H2 share %d"
                        + " cores, so every rate here moves with the machine's load and with how fast a shed answer comes"
                        + " back; compare the configurations within the run, not with another machine.%n%n",
                        Runtime.getRuntime().availableProcessors()))
                .append("| configuration | Redis | database queries/s | real users served | real-user lookups/s |")
                .append(" attacker requests/s | real users: 200 / 503 / errors | attackers: 503 / errors |\n")
                .append("|---|---|---|---|---|---|---|---|\n");
        for (Result result : results) {
            for (boolean down : new boolean[] { false, true }) {
                Counts total = result.total(down);
                text.append("| ").append(result.label()).append(" | ").append(down ? "stopped" : "up")
                        .append(" | ").append(Stats.spread(result.each(down, Phase::queriesPerSecond), "%,.0f"))
                        .append(" | ").append(Stats.spread(result.each(down, phase -> 100 * phase.realSuccess()), "%.1f%%"))
                        .append(" | ").append(Stats.spread(result.each(down, Phase::realRequestsPerSecond), "%,.0f"))
                        .append(" | ").append(Stats.spread(result.each(down, Phase::attackRequestsPerSecond), "%,.0f"))
                        .append(" | ").append(String.format(Locale.ROOT, "%,d / %,d / %,d", total.realServed(),
                                total.realShed(), total.realErrors()))
                        .append(" | ").append(String.format(Locale.ROOT, "%,d / %,d", total.attackShed(),
                                total.attackErrors()))
                        .append(" |\n");
            }
        }
        text.append("\n![Redis lost under attack](").append(CHART).append(")\n\n")
                .append(ReportSections.end(RedisLostScenario.MARKER)).append('\n');
        return text.toString();
    }
}
