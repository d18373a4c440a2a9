package dev.bloomguard.test.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import dev.bloomguard.core.redis.BitmapStore;

/** The contract on the in-memory store, whose clock the tests move: no Redis, no waiting. */
class InMemoryBitmapStoreContractTests extends BitmapStoreContract {

    private final MovableClock clock = new MovableClock();

    @Override
    BitmapStore newStore() {
        return InMemoryBitmapStore.create(clock);
    }

    @Override
    void advance(Duration time) {
        clock.advance(time);
    }

    @Override
    long subscribers(String channel) {
        return store().subscribers(channel);
    }

    @Override
    void closeStore(BitmapStore store) {
        ((InMemoryBitmapStore) store).close();
    }

    private InMemoryBitmapStore store() {
        return (InMemoryBitmapStore) currentStore();
    }

    /** A clock that tests move forward, standing for Redis's. */
    private static final class MovableClock extends Clock {

        private volatile long millis = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

        void advance(Duration by) {
            millis += by.toMillis();
        }

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
