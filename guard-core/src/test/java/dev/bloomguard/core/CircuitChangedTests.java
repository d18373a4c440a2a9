package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import dev.bloomguard.core.filter.FilterEvent.CircuitChanged;
import dev.bloomguard.core.filter.FilterEvent;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker.State;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.TestNames;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * A real Redis stopped and restarted from its snapshot under two filters of one store: the store's
 * one breaker opens once and closes once, and each filter tells its listeners of each transition,
 * once and in order; a closed filter tells nothing. Once closed, both filters block again.
 */
class CircuitChangedTests {

    private static final Duration OPEN_DURATION = Duration.ofMillis(300);
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(1);

    @Test
    void everyFilterOfTheStoreTellsEachTransitionOnceInOrderAndBlocksAgainOnceClosed(TestInfo test) {
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            try {
                BitmapStore store = LettuceBitmapStore.create(client, Duration.ofSeconds(5),
                        CircuitBreaker.create(1, OPEN_DURATION));
                String name = TestNames.unique(test);
                List<FilterEvent> usersHeard = new CopyOnWriteArrayList<>();
                List<FilterEvent> ordersHeard = new CopyOnWriteArrayList<>();
                List<FilterEvent> closedHeard = new CopyOnWriteArrayList<>();
                RedisBloomFilter users = filter(name + "-users", store, usersHeard);
                RedisBloomFilter orders = filter(name + "-orders", store, ordersHeard);
                filter(name + "-closed", store, closedHeard).close();
                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                orders.load(LongStream.rangeClosed(1, 1_000).boxed());
                List<Long> usersAbsent = AbsentKeys.first(900, LongStream.range(1_000_000, 1_001_000),
                        id -> users.check(id) == Membership.ABSENT);
                List<Long> ordersAbsent = AbsentKeys.first(900, LongStream.range(1_000_000, 1_001_000),
                        id -> orders.check(id) == Membership.ABSENT);
                client.commands().save();
                usersHeard.clear();
                ordersHeard.clear();

                redis.stop();

                assertThat(users.check(1L)).as("the failure that opens the circuit").isEqualTo(Membership.UNAVAILABLE);
                assertThat(orders.check(1L)).as("open: failed at once").isEqualTo(Membership.UNAVAILABLE);
                assertThat(store.circuitState()).isEqualTo(State.OPEN);
                assertThat(transitions(usersHeard, users)).containsExactly("CLOSED->OPEN");
                assertThat(transitions(ordersHeard, orders)).containsExactly("CLOSED->OPEN");

                redis.restart(); // from the snapshot: both filters are there
                // The probe must find the connection back, or it fails and reopens the circuit.
                Await.until("the store's connection is back", Duration.ofSeconds(30),
                        () -> ((RedisAsyncCommands<byte[], byte[]>) client.shared()).getStatefulConnection().isOpen());
                Await.until("the open period is over", Duration.ofSeconds(5),
                        () -> store.circuitState() == State.HALF_OPEN);
                assertThat(transitions(usersHeard, users)).as("no probe yet").containsExactly("CLOSED->OPEN");

                assertThat(users.check(2L)).as("the probe").isEqualTo(Membership.PRESENT);

                assertThat(store.circuitState()).isEqualTo(State.CLOSED);
                for (List<FilterEvent> heard : List.of(usersHeard, ordersHeard)) {
                    assertThat(transitions(heard, heard == usersHeard ? users : orders))
                            .containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
                }
                assertThat(closedHeard).as("a closed filter hears nothing").isEmpty();
                for (RedisBloomFilter filter : List.of(users, orders)) {
                    assertThat(filter.checkAll(LongStream.rangeClosed(1, 1_000).boxed().toList()))
                            .as("every present key of %s admitted", filter.name()).containsOnly(Membership.PRESENT);
                }
                assertThat(users.checkAll(usersAbsent)).as("absent keys blocked again").containsOnly(Membership.ABSENT);
                assertThat(orders.checkAll(ordersAbsent)).containsOnly(Membership.ABSENT);
                assertThat(usersHeard).as("nothing but the three transitions").hasSize(3);
            }
            finally {
                client.close();
            }
        }
    }

    private static RedisBloomFilter filter(String name, BitmapStore store, List<FilterEvent> heard) {
        return RedisBloomFilter.builder(name, FilterGeometry.of(10_000, 0.01), store).checkTimeout(CHECK_TIMEOUT)
                .listener(heard::add).build();
    }

    /** The circuit events {@code heard}, as {@code FROM->TO}, each checked to name {@code filter}. */
    private static List<String> transitions(List<FilterEvent> heard, RedisBloomFilter filter) {
        List<CircuitChanged> changes = heard.stream().filter(CircuitChanged.class::isInstance)
                .map(CircuitChanged.class::cast).toList();
        assertThat(changes).allSatisfy(change -> assertThat(change.filter()).isSameAs(filter));
        return changes.stream().map(change -> change.from() + "->" + change.to()).toList();
    }
}
