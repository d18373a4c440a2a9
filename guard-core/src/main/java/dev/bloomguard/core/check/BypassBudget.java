package dev.bloomguard.core.check;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * How many calls per second one filter lets through, on this instance, while it cannot answer
 * (Redis down or too slow, the circuit open, the filter not loaded, answering suspended): failing
 * open is right for real users, but without a bound a flood of absent keys then reaches the
 * database whole. A token bucket of {@code rate} calls per second with a burst of one second's
 * worth; lock-free, one compare-and-set per bypassed call ({@link #tryBypass()}).
 *
 * <p>The rate is either fixed ({@link #fixed}) or learned ({@link #learning}). A learning budget
 * watches the calls the filter answered "may be present" (the calls that reached the method, and so
 * the database, while the guard worked) and allows
 * {@code max(2 × the highest per-second rate of them over the last five minutes of answers, floor)}:
 * while the filter cannot answer, the database sees at most about twice what it saw while it could,
 * which leaves real users their usual traffic and a spike of the same size on top, and turns a flood
 * of absent keys away. The floor (by default {@value #DEFAULT_FLOOR} calls per second) keeps a
 * quiet filter, or one that mostly blocks, from shedding its few real users. The five minutes
 * are five minutes of answers, not of the clock: while the filter cannot answer nothing new is
 * learned and nothing is forgotten, so a long outage keeps the rate learned before it.
 *
 * <p>The thing not to get wrong: a learning budget never sheds before the filter has answered once
 * on this instance ({@link #answered()}, {@link #passed}). There is nothing to learn from yet, and
 * a deploy's first warmup, when every call is bypassed, must stay quiet. A fixed budget sheds from
 * the start: an operator who sets one wants it to hold during the first warmup too.
 *
 * <p>Recording an answer is on every check's path, so it is a counter increment: no allocation, no
 * lock, and no clock read of its own ({@link #passed} takes the time the check already read). Once
 * a second, the first passed answer of the new second folds the finished second into per-minute
 * peaks.
 */
public final class BypassBudget {

    /** The learned rate never goes below this, in calls per second per instance. */
    public static final long DEFAULT_FLOOR = 100;

    /** A learning budget allows this many times the peak rate it learned. */
    static final int PEAK_MULTIPLE = 2;

    /** How many minutes of answers the peak is taken over. */
    static final int LEARNED_MINUTES = 5;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NONE = Long.MIN_VALUE;

    private final LongSupplier nanoClock;
    /** Calls per second of a fixed budget; 0 for a learning one. */
    private final double fixedRate;
    private final double floor;

    /** The token bucket as a theoretical arrival time (GCRA): a call may go when it is at most a burst ahead of now. */
    private final AtomicLong allowedUntil;

    /** The second (of the clock, in whole seconds) whose passed answers {@link #passedThisSecond} counts. */
    private final AtomicLong countedSecond = new AtomicLong(NONE);
    private final LongAdder passedThisSecond = new LongAdder();
    /**
     * The busiest second's passed answers of each of the last minutes that had any, in a ring of
     * the window's minutes and the one under way: the window reaches five to six minutes of answers
     * back. Written by the one answer a second that finishes the second before it.
     */
    private final AtomicLongArray peaks = new AtomicLongArray(LEARNED_MINUTES + 1);
    /** The clock's minute that {@link #peaks} is filling, and how many minutes with answers came before it. */
    private volatile long peakMinute = NONE;
    private volatile long minutesWithAnswers;
    private volatile boolean answered;

    private BypassBudget(LongSupplier nanoClock, double fixedRate, double floor) {
        this.nanoClock = nanoClock;
        this.fixedRate = fixedRate;
        this.floor = floor;
        // A full bucket at the start: the first second's worth may go at once.
        this.allowedUntil = new AtomicLong(nanoClock.getAsLong() - NANOS_PER_SECOND);
    }

    /**
     * A budget of {@code perSecond} calls per second, from the start.
     *
     * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public static BypassBudget fixed(double perSecond, LongSupplier nanoClock) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("perSecond (" + perSecond + ") must be a positive number");
        }
        return new BypassBudget(requireClock(nanoClock), perSecond, 0);
    }

    /** A learning budget with the {@link #DEFAULT_FLOOR default floor}. */
    public static BypassBudget learning(LongSupplier nanoClock) {
        return learning(DEFAULT_FLOOR, nanoClock);
    }

    /**
     * A budget of twice the peak per-second rate of passed answers over the last five minutes of
     * answers, at least {@code floor} calls per second, that sheds nothing before the first answer.
     */
    public static BypassBudget learning(double floor, LongSupplier nanoClock) {
        if (!(floor > 0) || Double.isInfinite(floor)) {
            throw new IllegalArgumentException("floor (" + floor + ") must be a positive number");
        }
        return new BypassBudget(requireClock(nanoClock), 0, floor);
    }

    private static LongSupplier requireClock(LongSupplier nanoClock) {
        if (nanoClock == null) {
            throw new IllegalArgumentException("nanoClock must not be null");
        }
        return nanoClock;
    }

    /**
     * The filter answered "may be present" and the call went on to the method.
     *
     * @param nowNanos the budget's clock when the answer came, as the check read it already
     */
    public void passed(long nowNanos) {
        if (fixedRate > 0) {
            return;
        }
        if (!answered) {
            answered = true;
        }
        long second = Math.floorDiv(nowNanos, NANOS_PER_SECOND);
        long counted = countedSecond.get();
        if (second > counted && countedSecond.compareAndSet(counted, second)) {
            // Once a second, by the one answer that moved the second on; an answer of the new
            // second that others count meanwhile lands in the finished one, a rounding. The first
            // second has no finished one before it: nothing is reset, so the answers other threads
            // count while it starts all stay in it.
            if (counted != NONE) {
                learn(counted, passedThisSecond.sumThenReset());
            }
        }
        passedThisSecond.increment();
    }

    /** The filter answered "absent": it can answer, so a learning budget may shed from now on. */
    public void answered() {
        if (!answered) {
            answered = true;
        }
    }

    /**
     * Folds a finished second's count of passed answers into its minute's peak. A minute without
     * answers (an outage) takes no place in the ring: nothing is forgotten while nothing is learned.
     */
    private void learn(long second, long passed) {
        long minute = Math.floorDiv(second, 60);
        if (minute != peakMinute) {
            peakMinute = minute;
            minutesWithAnswers++;
            peaks.set(slot(minutesWithAnswers), passed);
        }
        else if (passed > peaks.get(slot(minutesWithAnswers))) {
            peaks.set(slot(minutesWithAnswers), passed);
        }
    }

    private int slot(long minute) {
        return (int) (minute % peaks.length());
    }

    /**
     * Takes one call's place in the budget: whether a call the filter could not answer may go on.
     * False means over budget; what happens then ({@code when-exhausted}) is the caller's policy.
     */
    public boolean tryBypass() {
        if (fixedRate == 0 && !answered) {
            return true;
        }
        double rate = rate();
        long interval = Math.max(1, (long) (NANOS_PER_SECOND / rate));
        // A burst of one second's worth (one call at least) may be ahead of the clock.
        long tolerance = Math.max(0, (long) (Math.max(1, rate) * interval) - interval);
        long now = nanoClock.getAsLong();
        while (true) {
            long until = allowedUntil.get();
            long from = Math.max(until, now);
            if (from - now > tolerance) {
                return false;
            }
            if (allowedUntil.compareAndSet(until, from + interval)) {
                return true;
            }
        }
    }

    /**
     * Calls per second the budget allows now: the fixed rate, or twice the learned peak (at least
     * the floor). A learning budget that has never heard an answer reports its floor, though it
     * sheds nothing yet ({@link #tryBypass()}).
     */
    public double rate() {
        if (fixedRate > 0) {
            return fixedRate;
        }
        return Math.max(floor, (double) PEAK_MULTIPLE * peakPassed());
    }

    /** The busiest second's passed answers over the last five minutes of answers, the second being counted included. */
    long peakPassed() {
        long peak = passedThisSecond.sum();
        for (int slot = 0; slot < peaks.length(); slot++) {
            peak = Math.max(peak, peaks.get(slot));
        }
        return peak;
    }

    /** Whether the rate is learned from the filter's answers rather than fixed. */
    public boolean isLearning() {
        return fixedRate == 0;
    }

    @Override
    public String toString() {
        return isLearning() ? "BypassBudget[learning, " + rate() + "/s]" : "BypassBudget[" + fixedRate + "/s]";
    }
}
