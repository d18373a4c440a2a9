package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class AddJournalTest {

    private static final long ONE_MINUTE = Duration.ofMinutes(1).toNanos();

    @Test
    void keepsAtMostCapacityEntriesWhenUnpinned() {
        long start = System.nanoTime();
        AddJournal journal = new AddJournal(ONE_MINUTE, 3);

        for (long i = 1; i <= 10; i++) {
            journal.record(new long[] {i});
        }

        assertThat(sequences(journal.since(start, 0))).containsExactly(8L, 9L, 10L);
        assertThat(journal.since(start, 0)).extracting(entry -> entry.offsets()[0]).containsExactly(8L, 9L, 10L);
    }

    @Test
    void dropsEntriesOlderThanTheRetentionWhenUnpinned() throws InterruptedException {
        long start = System.nanoTime();
        AddJournal journal = new AddJournal(Duration.ofMillis(20).toNanos(), 1000);
        journal.record(new long[] {1});
        journal.record(new long[] {2});

        Thread.sleep(60);
        journal.record(new long[] {3});

        assertThat(sequences(journal.since(start, 0))).containsExactly(3L);
    }

    @Test
    void neverDropsEntriesRecordedAfterThePinEvenPastCapacityOrRetention() throws InterruptedException {
        AddJournal journal = new AddJournal(Duration.ofMillis(20).toNanos(), 2);
        Thread.sleep(30);
        long pinned = journal.pin();

        for (long i = 1; i <= 50; i++) {
            journal.record(new long[] {i});
        }
        Thread.sleep(60);
        journal.record(new long[] {51});

        assertThat(sequences(journal.since(pinned, 0))).hasSize(51).first().isEqualTo(1L);
        assertThat(sequences(journal.since(pinned, 0))).last().isEqualTo(51L);
    }

    @Test
    void pinsFromOneRetentionBeforeNowSoRecentAddsAreKept() {
        AddJournal journal = new AddJournal(ONE_MINUTE, 2);
        journal.record(new long[] {1});
        journal.record(new long[] {2});

        long pinned = journal.pin();
        for (long i = 3; i <= 10; i++) {
            journal.record(new long[] {i});
        }

        assertThat(pinned).isLessThan(System.nanoTime() - ONE_MINUTE + Duration.ofSeconds(1).toNanos());
        assertThat(sequences(journal.since(pinned, 0))).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    }

    @Test
    void trimsBackToCapacityOnceUnpinned() {
        long start = System.nanoTime();
        AddJournal journal = new AddJournal(ONE_MINUTE, 2);
        journal.pin();
        for (long i = 1; i <= 10; i++) {
            journal.record(new long[] {i});
        }

        journal.unpin();

        assertThat(sequences(journal.since(start, 0))).containsExactly(9L, 10L);
    }

    @Test
    void returnsOnlyEntriesAfterTheGivenSequence() {
        long start = System.nanoTime();
        AddJournal journal = new AddJournal(ONE_MINUTE, 100);
        for (long i = 1; i <= 5; i++) {
            journal.record(new long[] {i * 10, i * 10 + 1});
        }

        List<AddJournal.Entry> after3 = journal.since(start, 3);

        assertThat(sequences(after3)).containsExactly(4L, 5L);
        assertThat(after3.get(0).offsets()).containsExactly(40L, 41L);
        assertThat(journal.since(start, 5)).isEmpty();
    }

    @Test
    void returnsOnlyEntriesRecordedAtOrAfterTheGivenInstant() throws InterruptedException {
        AddJournal journal = new AddJournal(ONE_MINUTE, 100);
        journal.record(new long[] {1});
        Thread.sleep(5);
        long between = System.nanoTime();
        Thread.sleep(5);
        journal.record(new long[] {2});

        assertThat(sequences(journal.since(between, 0))).containsExactly(2L);
    }

    /**
     * A load replays {@code since(pin, 0)}, remembers the highest sequence it saw, and under the
     * swap lock replays only what came after it. That is complete only if seeing sequence s means
     * every earlier sequence was seen too; otherwise an add racing the first replay is lost.
     * The race is narrow, so many short rounds run for about two seconds.
     */
    @Test
    void neverReturnsASequenceWithoutEveryEarlierOne() throws Exception {
        int writers = 3;
        int perWriter = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            int rounds = 0;
            List<String> gaps = new ArrayList<>();
            while (gaps.isEmpty() && (rounds < 20 || System.nanoTime() < deadline)) {
                rounds++;
                AddJournal journal = new AddJournal(ONE_MINUTE, 0);
                long pinned = journal.pin();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> futures = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    futures.add(pool.submit(() -> {
                        go.await();
                        long[] offsets = {1};
                        for (int i = 0; i < perWriter; i++) {
                            journal.record(offsets);
                        }
                        return null;
                    }));
                }
                go.countDown();
                while (gaps.isEmpty() && futures.stream().anyMatch(future -> !future.isDone())) {
                    List<Long> seen = sequences(journal.since(pinned, 0));
                    long max = seen.stream().mapToLong(Long::longValue).max().orElse(0);
                    if (seen.size() != max) {
                        gaps.add("round " + rounds + ": saw " + seen.size() + " entries up to sequence " + max);
                    }
                }
                for (Future<?> future : futures) {
                    future.get(30, TimeUnit.SECONDS);
                }
                assertThat(journal.since(pinned, 0)).hasSize(writers * perWriter);
            }
            assertThat(gaps).isEmpty();
        }
        finally {
            pool.shutdownNow();
        }
    }

    private static List<Long> sequences(List<AddJournal.Entry> entries) {
        return entries.stream().map(AddJournal.Entry::sequence).toList();
    }
}
