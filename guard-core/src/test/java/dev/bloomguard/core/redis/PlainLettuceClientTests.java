package dev.bloomguard.core.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisClusterExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

/**
 * A filter on a plain Lettuce client, as an application without Spring builds it: guard-core
 * needs Lettuce and nothing of Spring Data Redis, whose classes are not even on this class path.
 */
class PlainLettuceClientTests {

    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    @Test
    void springDataRedisIsNotOnTheClassPath() {
        assertThatThrownBy(() -> Class.forName("org.springframework.data.redis.connection.RedisConnectionFactory"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void filterOnARedisClientLoadsAddsChecksAndHearsItsChannel() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
            try (LettuceConnections connections = LettuceConnections.of(client)) {
                LettuceBitmapStore store = LettuceBitmapStore.create(connections, Duration.ofSeconds(10));
                RedisBloomFilter users = RedisBloomFilter.builder("user", FilterGeometry.of(100_000, 0.01), store)
                        .keyPrefix("plain").build();
                users.load(LongStream.rangeClosed(1, 5_000).boxed());
                users.add(1_000_000L);

                assertThat(LongStream.rangeClosed(1, 5_000).mapToObj(users::check)).containsOnly(Membership.PRESENT);
                assertThat(users.check(1_000_000L)).isEqualTo(Membership.PRESENT);
                long blocked = LongStream.rangeClosed(-1_000, -1).filter(id -> users.check(id) == Membership.ABSENT).count();
                assertThat(blocked).as("absent ids blocked").isGreaterThan(950);
                assertThat(store.length(users.keys().live(0))).as("the bitmap is in this Redis")
                        .isEqualTo(users.geometry().byteSize());

                List<String> heard = new CopyOnWriteArrayList<>();
                try (BitmapStore.Subscription subscription = store.subscribe("plain:news",
                        message -> heard.add(new String(message)))) {
                    assertThat(subscription.isHearing()).as("confirmed by Redis when subscribe returns").isTrue();
                    Await.until("a message published on the subscribed channel heard", Duration.ofSeconds(5), () -> {
                        store.publish("plain:news", "hello".getBytes());
                        return !heard.isEmpty();
                    });
                }
                assertThat(heard).contains("hello");
                users.close();
            }
            finally {
                client.shutdown();
            }
        }
    }

    @Test
    void filterOnARedisClusterClientChecksAndAdds() {
        try (LettuceConnections connections = LettuceConnections.of(CLUSTER.client())) {
            LettuceBitmapStore store = LettuceBitmapStore.create(connections, Duration.ofSeconds(10));
            RedisBloomFilter users = RedisBloomFilter.builder("user", FilterGeometry.of(100_000, 0.01), store)
                    .keyPrefix("plain").build();
            users.load(LongStream.rangeClosed(1, 2_000).boxed());
            users.add(7_000_000L);

            assertThat(LongStream.rangeClosed(1, 2_000).mapToObj(users::check)).containsOnly(Membership.PRESENT);
            assertThat(users.check(7_000_000L)).isEqualTo(Membership.PRESENT);
            long blocked = LongStream.rangeClosed(-1_000, -1).filter(id -> users.check(id) == Membership.ABSENT).count();
            assertThat(blocked).as("absent ids blocked").isGreaterThan(950);
            users.close();
        }
    }
}
