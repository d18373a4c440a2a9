package dev.bloomguard.bench;

import java.util.List;
import java.util.function.ToDoubleFunction;

/** What the Redis-lost scenario ({@link RedisLostScenario}) measured: per configuration, its rounds of two phases. */
final class RedisLostFigures {

    private RedisLostFigures() {
    }

    /**
     * What the clients counted between two instants: every request by how it was answered.
     *
     * @param realServed real-user lookups answered 200
     * @param realShed real-user lookups answered 503 (shed by the bypass budget)
     * @param attackShed attacker requests answered 503
     * @param realErrors real-user lookups answered otherwise (a 404: a present id refused; a 500) or not at all
     * @param attackErrors attacker requests answered neither 404 nor 503, or not at all
     */
    record Counts(long realRequests, long realServed, long realShed, long realErrors, long attackRequests,
            long attackShed, long attackErrors) {

        static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0);

        Counts minus(Counts earlier) {
            return plus(earlier, -1);
        }

        Counts plus(Counts other) {
            return plus(other, 1);
        }

        private Counts plus(Counts other, int sign) {
            return new Counts(realRequests + sign * other.realRequests, realServed + sign * other.realServed,
                    realShed + sign * other.realShed, realErrors + sign * other.realErrors,
                    attackRequests + sign * other.attackRequests, attackShed + sign * other.attackShed,
                    attackErrors + sign * other.attackErrors);
        }
    }

    /** One phase of a round (Redis up, or Redis down): its length, the demo's queries, the clients' counts. */
    record Phase(double seconds, long queries, Counts counts) {

        Phase {
            if (!(seconds > 0)) {
                throw new IllegalArgumentException("a phase lasts some time, not " + seconds + " s");
            }
        }

        double queriesPerSecond() {
            return queries / seconds;
        }

        /** Real-user lookups answered 200, of all real-user lookups; 503s and errors count against it. */
        double realSuccess() {
            return counts.realRequests() == 0 ? 0 : counts.realServed() / (double) counts.realRequests();
        }

        double realRequestsPerSecond() {
            return counts.realRequests() / seconds;
        }

        double attackRequestsPerSecond() {
            return counts.attackRequests() / seconds;
        }
    }

    /** One round of one configuration: a phase with Redis up, then one with Redis stopped. */
    record Round(Phase up, Phase down) {
    }

    /** One configuration's rounds; each figure is the median of the rounds. */
    record Result(String label, String shortLabel, List<Round> rounds) {

        List<Double> each(boolean down, ToDoubleFunction<Phase> figure) {
            return rounds.stream().map(round -> down ? round.down() : round.up()).mapToDouble(figure).boxed().toList();
        }

        double median(boolean down, ToDoubleFunction<Phase> figure) {
            return Stats.median(each(down, figure));
        }

        /** The phases' counts summed over the rounds. */
        Counts total(boolean down) {
            Counts sum = Counts.NONE;
            for (Round round : rounds) {
                sum = sum.plus((down ? round.down() : round.up()).counts());
            }
            return sum;
        }
    }
}
