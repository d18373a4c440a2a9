package dev.bloomguard.core.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The events' wire format, which instances of two releases share during an upgrade: each event
 * decodes to what was encoded, and anything else (a newer release's event, a cut message) is
 * ignored rather than misread.
 */
class FilterEventsTests {

    private final List<String> heard = new ArrayList<>();

    private final FilterEvents.Listener listener = new FilterEvents.Listener() {
        @Override
        public void onAdd(int shard, long[] offsets) {
            heard.add("add " + shard + " " + Arrays.toString(offsets));
        }

        @Override
        public void onAdd(int shard, long[] offsets, AddCount counted) {
            heard.add("add " + shard + " " + Arrays.toString(offsets) + " by " + counted.writer() + " at "
                    + counted.count() + " (+" + counted.added() + ")");
        }

        @Override
        public void onSwap() {
            heard.add("swap");
        }

        @Override
        public void onRemembered(long[] hashes) {
            heard.add("remembered " + Arrays.toString(hashes));
        }

        @Override
        public void onForgotten(long[] hashes) {
            heard.add("forgotten " + Arrays.toString(hashes));
        }
    };

    @Test
    void anAddDecodesToItsShardAndOffsetsUpToTheLargestOffsetOfAShard() {
        long[] offsets = { 0, 7, 958_527, (1L << 32) - 1 };

        byte[] message = FilterEvents.encodeAdd(3, offsets, offsets.length, null);
        FilterEvents.decode(message, listener);

        assertThat(message).hasSize(5 + 4 * offsets.length).startsWith('A');
        assertThat(heard).containsExactly("add 3 [0, 7, 958527, 4294967295]");
    }

    @Test
    void aCountedAddDecodesToItsShardOffsetsAndItsWritersCount() {
        long[] offsets = { 5, (1L << 32) - 1 };
        AddCount counted = new AddCount("instance-é1", 1L << 40, 3);

        byte[] message = FilterEvents.encodeAdd(2, offsets, offsets.length, counted);
        FilterEvents.decode(message, listener);
        FilterEvents.decode(Arrays.copyOf(message, message.length - 1), listener); // cut: ignored

        assertThat(message).startsWith('C');
        assertThat(heard).containsExactly("add 2 [5, 4294967295] by instance-é1 at 1099511627776 (+3)");
    }

    @Test
    void swapsAndRememberedAndForgottenMissesDecodeToWhatWasSent() {
        FilterEvents.decode(new byte[] { 'S' }, listener);
        FilterEvents.decode(FilterEvents.encodeHashes(FilterEvents.REMEMBER, List.of(-1L)), listener);
        FilterEvents.decode(FilterEvents.encodeHashes(FilterEvents.FORGET, List.of(1L, Long.MAX_VALUE)), listener);

        assertThat(heard).containsExactly("swap", "remembered [-1]", "forgotten [1, 9223372036854775807]");
    }

    @Test
    void anUnknownOrCutMessageIsIgnored() {
        FilterEvents.decode(new byte[0], listener);
        FilterEvents.decode(new byte[] { 'X', 1, 2 }, listener);
        FilterEvents.decode(new byte[] { 'A', 0, 0, 0, 1, 9 }, listener);
        FilterEvents.decode(new byte[] { 'R', 1, 2, 3 }, listener);

        assertThat(heard).isEmpty();
    }
}
