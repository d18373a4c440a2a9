package dev.bloomguard.test.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.test.memory.InMemoryBitmapStore;
import dev.bloomguard.testsupport.AbsentKeys;

/**
 * A slice: the context holds the application's service and nothing of its own configuration, no
 * auto-configuration but what {@link AutoConfigureBloomGuardInMemory} brings; the advice still
 * guards the service, from memory.
 */
@SpringBootTest(classes = GuardedUsers.class, properties = { "bloom-guard.filters.user.expected-insertions=1000",
        "bloom-guard.filters.account.expected-insertions=1000" })
@AutoConfigureBloomGuardInMemory
class InMemorySliceTests {

    @Autowired
    GuardedUsers users;

    @Autowired
    BloomGuardTester bloomGuard;

    @Autowired
    ApplicationContext context;

    @Test
    void theServiceIsGuardedWithNoRedisInTheContext() {
        assertThat(context.getBean(BitmapStore.class)).isInstanceOf(InMemoryBitmapStore.class);
        assertThat(context.getBeanNamesForType(RedisConnectionFactory.class)).isEmpty();

        bloomGuard.preload("user", LongStream.rangeClosed(1, 1_000).boxed().toList());
        int before = users.reads();

        LongStream.rangeClosed(1, 1_000).forEach(id -> bloomGuard.assertPassed(() -> users.find(id)));
        long rejected = LongStream.rangeClosed(1_000_001, 1_001_000)
                .filter(id -> bloomGuard.rejects(() -> users.find(id))).count();

        assertThat(rejected).as("absent keys rejected, of 1,000").isGreaterThan(950);
        assertThat(users.reads() - before).as("calls that reached the method").isEqualTo(2_000 - (int) rejected);
    }

    @Test
    void aKeySavedThroughBloomPutPassesAtOnce() {
        bloomGuard.preload("user", 1L);
        RedisBloomFilter filter = bloomGuard.filter("user");
        List<Long> fresh = AbsentKeys.first(5, LongStream.iterate(3_000_000, id -> id + 1),
                id -> filter.check(id) == Membership.ABSENT);
        fresh.forEach(id -> bloomGuard.assertRejected(() -> users.find(id)));

        fresh.forEach(users::save);

        fresh.forEach(id -> bloomGuard.assertPassed(() -> users.find(id)));
        long stillAbsent = AbsentKeys.first(1, LongStream.iterate(3_000_000, id -> id + 1),
                id -> filter.check(id) == Membership.ABSENT).get(0);
        bloomGuard.assertRejected(() -> users.find(stillAbsent));
    }
}
