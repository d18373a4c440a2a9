package dev.bloomguard.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.core.redis.RealRedis;
import dev.bloomguard.testsupport.Await;

/**
 * A load's hold on the adds journal ({@code :loading}) against a real Redis: while it holds, the
 * journal is neither rotated nor trimmed, so it must end with its loader, also a loader that was
 * killed mid-load; and it must last as long as a live load runs, however long that is.
 */
class LoadHoldTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(10_000, 0.01);
    private static final int CAPACITY = 100;

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis(Duration.ofSeconds(5));

    @Test
    void aLoaderKilledMidLoadHoldsTheJournalForOneHoldAtMost() {
        RedisBloomFilter writer = filter(REDIS.filter(GEOMETRY)).build();
        writer.load(LongStream.rangeClosed(1, 1_000).boxed());
        LettuceClients killed = LettuceClients.standalone(REDIS.port());
        RedisBloomFilter loader = filter(RedisBloomFilter.builder(REDIS.filterName(), GEOMETRY,
                LettuceBitmapStore.create(killed, Duration.ofSeconds(5)))).build();
        loader.beginLoad(); // never loads and never ends:
        killed.close(); // its process is gone, and nothing renews its hold

        List<Long> added = LongStream.rangeClosed(2_001, 2_000 + 5 * CAPACITY).boxed().toList();
        added.forEach(writer::add);

        Await.until("the journal trimmed to its capacity again", Duration.ofSeconds(10), () -> {
            writer.maintainJournal();
            return journalLength(writer) <= CAPACITY;
        });
        assertThat(writer.checkAll(added)).containsOnly(Membership.PRESENT);
        long blocked = LongStream.range(1_000_000, 1_001_000).filter(id -> writer.check(id) == Membership.ABSENT)
                .count();
        assertThat(blocked).as("absent ids of 1,000 blocked").isGreaterThan(950);
    }

    @Test
    void aLoadThatRunsLongerThanItsHoldKeepsItAndSwapsInEveryAddMadeMeanwhile() {
        RedisBloomFilter filter = filter(REDIS.filter(GEOMETRY)).build();
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        Iterator<Long> slowSource = LongStream.rangeClosed(1, 2_000).boxed().peek(id -> {
            if (id == 1_000) {
                // The load reads its source for three holds; the journal is trimmed meanwhile, but not its mark.
                LongStream.rangeClosed(5_001, 5_050).forEach(filter::add);
                sleep(Duration.ofMillis(900));
                filter.maintainJournal();
            }
        }).iterator();

        LoadReport report = filter.load(slowSource, null, false);

        assertThat(report.keys()).isEqualTo(2_000);
        assertThat(filter.checkAll(LongStream.rangeClosed(1, 2_000).boxed().toList())).containsOnly(Membership.PRESENT);
        assertThat(filter.checkAll(LongStream.rangeClosed(5_001, 5_050).boxed().toList()))
                .as("added while it loaded").containsOnly(Membership.PRESENT);
        long blocked = LongStream.range(1_000_000, 1_001_000).filter(id -> filter.check(id) == Membership.ABSENT)
                .count();
        assertThat(blocked).as("absent ids of 1,000 blocked").isGreaterThan(950);
    }

    private static RedisBloomFilter.Builder filter(RedisBloomFilter.Builder builder) {
        return builder.journalCapacity(CAPACITY).journalRetention(Duration.ofMillis(200))
                .loadHold(Duration.ofMillis(300));
    }

    private static long journalLength(RedisBloomFilter filter) {
        try (LettuceClients client = LettuceClients.standalone(REDIS.port())) {
            return client.commands().llen(filter.keys().journal().getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
