package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.RealRedis;

/** The cross-instance load lock against a real Redis: one holder, renewed while held, expiring when its holder dies. */
class LoadLockTests {

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis(Duration.ofSeconds(5));

    private static ScheduledExecutorService renewals;
    private static int filterNumber;

    @BeforeAll
    static void startRenewals() {
        renewals = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void stopRenewals() {
        renewals.shutdownNow();
    }

    @Test
    void onlyOneInstanceHoldsTheLockUntilItIsReleased() {
        String name = "locked" + (++filterNumber);
        RedisBloomFilter first = instance(name, "first");
        RedisBloomFilter second = instance(name, "second");
        Optional<RedisBloomFilter.LoadLease> lease = first.tryLockForLoad(Duration.ofSeconds(10), renewals);
        assertThat(lease).isPresent();
        assertThat(second.tryLockForLoad(Duration.ofSeconds(10), renewals)).isEmpty();
        assertThat(second.lockHolder()).contains("first");
        lease.get().close();
        assertThat(second.lockHolder()).isEmpty();
        try (RedisBloomFilter.LoadLease taken = second.tryLockForLoad(Duration.ofSeconds(10), renewals).orElseThrow()) {
            assertThat(first.lockHolder()).contains("second");
        }
    }

    @Test
    void aCrashedHoldersLockExpires() throws InterruptedException {
        String name = "crashed" + (++filterNumber);
        RedisBloomFilter survivor = instance(name, "survivor");
        assertThat(REDIS.store().setIfAbsent(survivor.keys().lock(), "crashed-instance", Duration.ofMillis(300))).isTrue();
        assertThat(survivor.tryLockForLoad(Duration.ofSeconds(10), renewals)).isEmpty();
        Thread.sleep(400);
        try (RedisBloomFilter.LoadLease lease = survivor.tryLockForLoad(Duration.ofSeconds(10), renewals).orElseThrow()) {
            assertThat(survivor.lockHolder()).contains("survivor");
        }
    }

    @Test
    void aHeldLockIsRenewedPastItsTtlAndReleasedAfterAFailedLoad() throws InterruptedException {
        String name = "renewed" + (++filterNumber);
        RedisBloomFilter holder = instance(name, "holder");
        RedisBloomFilter.LoadLease lease = holder.tryLockForLoad(Duration.ofMillis(300), renewals).orElseThrow();
        try {
            Thread.sleep(1_000);
            assertThat(holder.lockHolder()).as("still held after three TTLs").contains("holder");
            assertThatThrownBy(() -> holder.load(List.of((Object) 1L).stream().map(key -> {
                throw new IllegalStateException("the source failed");
            }))).isInstanceOf(IllegalStateException.class).hasMessage("the source failed");
        }
        finally {
            lease.close();
        }
        assertThat(holder.lockHolder()).as("released after the failed load").isEmpty();
    }

    @Test
    void closingAnExpiredLeaseLeavesTheNewHoldersLockAlone() throws Exception {
        String name = "stolen" + (++filterNumber);
        RedisBloomFilter slow = instance(name, "slow");
        RedisBloomFilter other = instance(name, "other");
        ScheduledExecutorService busy = Executors.newSingleThreadScheduledExecutor();
        try {
            busy.submit(() -> sleep(1_000));
            RedisBloomFilter.LoadLease lease = slow.tryLockForLoad(Duration.ofMillis(200), busy).orElseThrow();
            Thread.sleep(400);
            try (RedisBloomFilter.LoadLease taken = other.tryLockForLoad(Duration.ofSeconds(10), renewals).orElseThrow()) {
                lease.close();
                assertThat(other.lockHolder()).as("the stalled holder's close").contains("other");
            }
        }
        finally {
            busy.shutdownNow();
        }
    }

    @Test
    void aLockWhoseRenewalCannotBeScheduledIsReleasedAtOnce() {
        String name = "unscheduled" + (++filterNumber);
        RedisBloomFilter holder = instance(name, "holder");
        ScheduledExecutorService stopped = Executors.newSingleThreadScheduledExecutor();
        stopped.shutdown();
        assertThatThrownBy(() -> holder.tryLockForLoad(Duration.ofSeconds(30), stopped))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(holder.lockHolder()).isEmpty();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static RedisBloomFilter instance(String name, String instanceId) {
        return RedisBloomFilter.builder(name, FilterGeometry.of(1_000, 0.01), REDIS.store()).instanceId(instanceId).build();
    }
}
