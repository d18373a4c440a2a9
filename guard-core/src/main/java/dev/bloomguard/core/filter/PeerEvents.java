package dev.bloomguard.core.filter;

import dev.bloomguard.core.events.AddCount;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.mirror.TrustLease;
import dev.bloomguard.core.misses.RememberedMisses;

/**
 * What other instances tell this one's filter: adds and swaps for the mirror, remembered and
 * forgotten misses for the index, pings for the trust lease. While the subscription is down the
 * mirror only misses bits, which sends checks to Redis: slower, never wrong.
 */
public final class PeerEvents implements FilterEvents.Listener {

    private final int shards;
    private final BitmapMirror mirror;
    private final RememberedMisses misses;
    private final TrustLease trust;

    /** Each of {@code mirror}, {@code misses} and {@code trust} may be null: the filter has none. */
    public PeerEvents(int shards, BitmapMirror mirror, RememberedMisses misses, TrustLease trust) {
        this.shards = shards;
        this.mirror = mirror;
        this.misses = misses;
        this.trust = trust;
    }

    @Override
    public void onAdd(int shard, long[] offsets) {
        if (mirror != null && shard >= 0 && shard < shards) {
            mirror.apply(shard, offsets, 0, offsets.length);
        }
    }

    /** Applied first, then counted as heard: a trusting mirror never counts bits it does not hold yet. */
    @Override
    public void onAdd(int shard, long[] offsets, AddCount counted) {
        onAdd(shard, offsets);
        if (trust != null) {
            trust.heardAdd(shard, counted);
        }
    }

    @Override
    public void onSwap() {
        if (mirror != null) {
            mirror.clear();
        }
        if (misses != null) {
            misses.clear();
        }
    }

    /** Adds (and swaps) published before the subscription was confirmed were not heard. */
    @Override
    public void onSubscribed() {
        if (mirror != null) {
            mirror.clear();
        }
    }

    @Override
    public void onPing(long sender, long sequence) {
        if (trust != null) {
            trust.heard(sender, sequence);
        }
    }

    @Override
    public void onRemembered(long[] hashes) {
        if (misses != null) {
            misses.remembered(hashes);
        }
    }

    @Override
    public void onForgotten(long[] hashes) {
        if (misses != null) {
            misses.forgotten(hashes);
        }
    }
}
