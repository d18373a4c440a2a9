package dev.bloomguard.bench;

import java.util.List;
import java.util.function.ToDoubleFunction;

/** What the under-attack scenario ({@link UnderAttackScenario}) measured: its rounds, per configuration, and the run. */
final class UnderAttackFigures {

    private UnderAttackFigures() {
    }

    /**
     * One configuration's measured window.
     *
     * @param realRefused real-key lookups that did not answer 200: with the guard, a product bug
     * @param errors attacker requests answered neither 404 nor (for a real key) 200
     */
    record Round(double seconds, long realRequests, long attackRequests, long queries, long[] realNanosSorted,
            long realRefused, long errors) {

        double queriesPerSecond() {
            return queries / seconds;
        }

        /** Queries beyond one per real-key lookup, per attacker request. */
        double queriesPerAttack() {
            return Math.max(0, queries - realRequests) / (double) Math.max(1, attackRequests);
        }
    }

    /** One configuration's rounds; each figure is the median of the rounds. */
    record Result(String label, List<Round> rounds) {

        List<Double> each(ToDoubleFunction<Round> figure) {
            return rounds.stream().mapToDouble(figure).boxed().toList();
        }

        double median(ToDoubleFunction<Round> figure) {
            return Stats.median(each(figure));
        }

        long realRefused() {
            return rounds.stream().mapToLong(Round::realRefused).sum();
        }

        long errors() {
            return rounds.stream().mapToLong(Round::errors).sum();
        }

        long realRequests() {
            return rounds.stream().mapToLong(Round::realRequests).sum();
        }

        static double p50Millis(Round round) {
            return Stats.percentile(round.realNanosSorted(), 50) / 1e6;
        }

        static double p99Millis(Round round) {
            return Stats.percentile(round.realNanosSorted(), 99) / 1e6;
        }

        static double attackRequestsPerSecond(Round round) {
            return round.attackRequests() / round.seconds();
        }

        static double realRequestsPerSecond(Round round) {
            return round.realRequests() / round.seconds();
        }
    }

    /**
     * @param falsePositives the ids the attackers hammered, in the order found from
     *     {@link UnderAttackScenario#ABSENT_FROM}
     * @param results one per configuration, in {@link UnderAttackScenario#CONFIGURATIONS} order
     */
    record Run(long[] falsePositives, List<Result> results) {

        /** Absent ids the offline search tried to find the false positives. */
        long absentIdsSearched() {
            return falsePositives[falsePositives.length - 1] - UnderAttackScenario.ABSENT_FROM + 1;
        }
    }
}
