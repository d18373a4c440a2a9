package dev.bloomguard.core.histories;

import dev.bloomguard.core.redis.BitmapStoreException;

/** One step of a {@link History}; its text is what a shrunk failing history prints. */
public sealed interface Step {

    void apply(History history);

    /** An add on an instance: the key is committed once the add returns (a refused add rolls its row back). */
    record Add(int instance, long key) implements Step {
        @Override
        public void apply(History history) {
            try {
                history.instance(instance).add(key);
                history.added(key);
            }
            catch (BitmapStoreException ex) {
                // refused: the row's transaction rolls back
            }
        }
    }

    /** A row written behind the guard's back (another service, plain SQL): the filter learns it from a load. */
    record Insert(long key) implements Step {
        @Override
        public void apply(History history) {
            history.insertBehindTheGuard(key);
        }
    }

    /** A load (warmup, rebuild, re-warm) on an instance, from every row. */
    record Load(int instance) implements Step {
        @Override
        public void apply(History history) {
            history.load(instance);
        }
    }

    /** A loader that dies mid-load: its mark stays in the journal, and its hold until it lapses. */
    record KilledLoader() implements Step {
        @Override
        public void apply(History history) {
            history.killedLoader();
        }
    }

    /** A load on an instance from a source that returns none of the committed rows. */
    record BrokenLoad(int instance) implements Step {
        @Override
        public void apply(History history) {
            history.brokenLoad(instance);
        }
    }

    /** {@code FLUSHALL} (or a restart with nothing): the filter, its journal, its registry and its misses are gone. */
    record Flush() implements Step {
        @Override
        public void apply(History history) {
            history.flush();
        }
    }

    /** Redis saves a snapshot. */
    record Snapshot() implements Step {
        @Override
        public void apply(History history) {
            history.snapshot();
        }
    }

    /** Redis comes back from the last snapshot (a restart from an older RDB, a replica behind its master). */
    record BackInTime() implements Step {
        @Override
        public void apply(History history) {
            history.backInTime();
        }
    }

    /** Redis refuses writes ({@code min-replicas-to-write}), or takes them again. */
    record RefuseWrites(boolean refuse) implements Step {
        @Override
        public void apply(History history) {
            history.refuseWrites(refuse);
        }
    }

    /** A lookup on instance 0 found no row for a key nobody committed, and remembers the miss. */
    record RememberMiss(long key) implements Step {
        @Override
        public void apply(History history) {
            if (!history.rows.contains(key)) {
                history.instance(0).rememberMissAsync(key, History.LOOKUP, System.nanoTime()).join();
            }
        }
    }

    /** Time passes: longer than the journal's retention, so adds may leave it at the next upkeep. */
    record Wait() implements Step {
        @Override
        public void apply(History history) {
            history.waitPastRetention();
        }
    }

    /** The starter's scheduled upkeep: rewind checks and journal upkeep on every instance. */
    record Upkeep() implements Step {
        @Override
        public void apply(History history) {
            history.upkeep();
        }
    }

    /** Every committed key checked on an instance. */
    record Check(int instance) implements Step {
        @Override
        public void apply(History history) {
            history.check(instance);
        }
    }
}
