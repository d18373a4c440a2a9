package dev.bloomguard.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The "Under attack" section of {@code docs/benchmarks.md}, its chart and its targets, from the
 * results of one {@link UnderAttackScenario} run. Every ratio is against "no guard" (or, for the
 * remembered misses, "guard alone") of the same run.
 */
final class UnderAttackReport {

    /** The command that runs this scenario alone, as the section quotes it. */
    static final String ALONE_COMMAND =
            "./mvnw -q -Pbench -pl demo-app,guard-bench -am verify -DskipTests -Dbench.args=\"--only under-attack\"";

    /** The chart, next to {@code docs/benchmarks.md}. */
    static final String CHART = "bench-under-attack.png";

    /** Remembered misses and single flight: attack queries at most this share of the guard alone's. */
    static final double TARGET_SHARE = 0.05;

    /** Every target row this scenario owns starts with this. */
    static final String TARGET_PREFIX = "under attack";

    private final UnderAttackScenario.Settings settings;
    private final UnderAttackFigures.Run run;
    private final List<UnderAttackFigures.Result> results;

    UnderAttackReport(UnderAttackScenario.Settings settings, UnderAttackFigures.Run run) {
        if (run.results().size() != UnderAttackScenario.CONFIGURATIONS.size()) {
            throw new IllegalArgumentException("one result per configuration, not " + run.results().size());
        }
        this.settings = settings;
        this.run = run;
        this.results = run.results();
    }

    private UnderAttackFigures.Result off() {
        return results.get(0);
    }

    private UnderAttackFigures.Result alone() {
        return results.get(1);
    }

    private UnderAttackFigures.Result remembered() {
        return results.get(2);
    }

    List<Target> targets() {
        double rememberedShare = remembered().median(UnderAttackFigures.Round::queriesPerAttack);
        double aloneShare = alone().median(UnderAttackFigures.Round::queriesPerAttack);
        double share = rememberedShare / Math.max(1e-9, aloneShare);
        long refused = results.stream().mapToLong(UnderAttackFigures.Result::realRefused).sum();
        long lookups = results.stream().mapToLong(UnderAttackFigures.Result::realRequests).sum();
        List<Target> rows = new ArrayList<>();
        rows.add(new Target(String.format(Locale.ROOT,
                "%s with remembered misses and single flight: database queries per attacker request at most %.0f%% of the"
                        + " guard alone's", TARGET_PREFIX, 100 * TARGET_SHARE), share,
                String.format(Locale.ROOT, "%.2f%% (%.4f vs %.4f)", 100 * share, rememberedShare, aloneShare),
                share <= TARGET_SHARE));
        rows.add(new Target(TARGET_PREFIX + ": no real key refused, in any configuration", refused,
                String.format(Locale.ROOT, "%,d of %,d lookups refused", refused, lookups), refused == 0).inEveryRun());
        return rows;
    }

    /** Draws the chart into {@code docs}. */
    void chart(Path docs) throws IOException {
        List<String> labels = results.stream().map(UnderAttackFigures.Result::label).toList();
        Charts.panels(docs.resolve(CHART), "Under attack: database load and real-key latency", labels, List.of(
                new Charts.Panel("database queries", "per s",
                        results.stream().mapToDouble(result -> result.median(UnderAttackFigures.Round::queriesPerSecond))
                                .toArray()),
                new Charts.Panel("real-key p99", "ms",
                        results.stream().mapToDouble(result -> result.median(UnderAttackFigures.Result::p99Millis))
                                .toArray())));
    }

    /**
     * The section, between {@code <!-- under-attack -->} markers so that a run of this scenario
     * alone can replace it in a file the full suite wrote.
     *
     * @param alone true when run with {@code --only under-attack}: the section then names its own
     *     command and date, which differ from the file's header
     */
    String section(boolean alone) {
        StringBuilder text = new StringBuilder();
        text.append(ReportSections.start(UnderAttackScenario.MARKER)).append('\n')
                .append("## Under attack: absent and false-positive keys at the demo\n\n");
        if (alone) {
            text.append("Produced alone by `").append(ALONE_COMMAND).append("` on ").append(LocalDate.now())
                    .append(" (the rest of this file comes from the run named at the top).\n\n");
        }
        else {
            text.append("Part of the full run above; `").append(ALONE_COMMAND).append("` reruns this section alone.\n\n");
        }
        double offQueries = off().median(UnderAttackFigures.Round::queriesPerSecond);
        double offP99 = off().median(UnderAttackFigures.Result::p99Millis);
        text.append(String.format(Locale.ROOT, "The demo's own jar (embedded Redis, H2 database of %,d users), three",
                UnderAttackScenario.USERS))
                .append(" instances side by side, one per configuration, that take turns under the same traffic: a")
                .append(" first round that is not counted warms them up, then ").append(settings.rounds()).append(" rounds of ").append(settings.warmupMillis() / 1000)
                .append(" s warmup and ").append(settings.measureMillis() / 1000).append(" s measured each; every")
                .append(" figure is the median of the rounds with [min–max] after it. ").append(settings.realThreads())
                .append(" client threads look up real users (random ids 1..1,000,000; their latency is measured) while ")
                .append(settings.attackThreads()).append(" attacker threads send, in turn, one of ")
                .append(settings.falsePositives())
                .append(" false-positive ids and one random absent id, each as soon as the last one is answered")
                .append(" (closed loop). The false positives are computed offline from the filter's public geometry")
                .append(" (2,000,000 expected insertions at fpp 0.01, Murmur3 seed 0) and the seeded ids, as an attacker")
                .append(" can, and each is confirmed on both guarded instances before the traffic starts: it answers")
                .append(" 404 and costs one database query. Clients, demos, their Redis servers and H2 share ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, so absolute figures move with")
                .append(" the machine's load; the ratios are against \"no guard\" in the same run.\n\n")
                .append("Remembered misses: `negative-cache.enabled=true`, `ttl=1m`, shared through Redis (the")
                .append(" default); `single-flight=true`. \"Queries per attacker request\" counts the queries beyond one")
                .append(" per real-key lookup. \"Real keys refused\" counts real-key lookups that did not answer 200,")
                .append(" summed over the rounds; \"other errors\" attacker requests that did not answer 404.\n\n")
                .append("| configuration | attacker requests/s | real-key lookups/s | database queries/s | vs no guard |")
                .append(" queries per attacker request | real-key p50 ms | real-key p99 ms | p99 vs no guard |")
                .append(" real keys refused | other errors |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (UnderAttackFigures.Result result : results) {
            text.append("| ").append(result.label())
                    .append(" | ").append(Stats.spread(result.each(UnderAttackFigures.Result::attackRequestsPerSecond), "%,.0f"))
                    .append(" | ").append(Stats.spread(result.each(UnderAttackFigures.Result::realRequestsPerSecond), "%,.0f"))
                    .append(" | ").append(Stats.spread(result.each(UnderAttackFigures.Round::queriesPerSecond), "%,.0f"))
                    .append(" | ").append(String.format(Locale.ROOT, "%.3f×",
                            result.median(UnderAttackFigures.Round::queriesPerSecond) / offQueries))
                    .append(" | ").append(Stats.spread(result.each(UnderAttackFigures.Round::queriesPerAttack), "%.4f"))
                    .append(" | ").append(Stats.spread(result.each(UnderAttackFigures.Result::p50Millis), "%.1f"))
                    .append(" | ").append(Stats.spread(result.each(UnderAttackFigures.Result::p99Millis), "%.1f"))
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f×",
                            result.median(UnderAttackFigures.Result::p99Millis) / offP99))
                    .append(" | ").append(result.realRefused()).append(" of ").append(String.format("%,d", result.realRequests()))
                    .append(" | ").append(result.errors()).append(" |\n");
        }
        double realRate = remembered().median(UnderAttackFigures.Result::realRequestsPerSecond);
        text.append("\n![Under attack](").append(CHART).append(")\n\n")
                .append(String.format(Locale.ROOT, "Per attacker request the database answers %.4f queries with the"
                        + " guard alone (the false-positive half passes the filter, the random half does not) and %.4f"
                        + " with remembered misses and single flight, whose %,.0f queries/s are almost all the %,.0f"
                        + " real-key lookups/s. What is left of the attack there: each false positive once per TTL, and"
                        + " the random ids that pass the filter by chance, one in about %,d here (the offline search"
                        + " found %d false positives among the first %,d absent ids).%n%n",
                        alone().median(UnderAttackFigures.Round::queriesPerAttack),
                        remembered().median(UnderAttackFigures.Round::queriesPerAttack),
                        remembered().median(UnderAttackFigures.Round::queriesPerSecond), realRate,
                        run.absentIdsSearched() / run.falsePositives().length, run.falsePositives().length,
                        run.absentIdsSearched()));
        text.append(ReportSections.end(UnderAttackScenario.MARKER)).append('\n');
        return text.toString();
    }
}
