package dev.bloomguard.test.spring;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;

/**
 * The application service the Spring support's tests guard: it counts the calls that reach it, so a
 * test sees which ones the guard stopped. Filter {@code user} throws when it rejects, filter
 * {@code account} ({@code on-absent: return-empty} in the tests that use it) returns empty.
 */
public class GuardedUsers {

    private final AtomicInteger reads = new AtomicInteger();

    /** A method, not the field: the bean is a class-based proxy, whose own fields are unset. */
    public int reads() {
        return reads.get();
    }

    @BloomGuard(filter = "user", key = "#id")
    public String find(long id) {
        reads.incrementAndGet();
        return "user " + id;
    }

    @BloomGuard(filter = "user", key = "#id")
    public String findOrFail(long id) {
        reads.incrementAndGet();
        throw new IllegalStateException("user " + id + " is archived");
    }

    @BloomGuard(filter = "account", key = "#id")
    public Optional<String> findAccount(long id) {
        reads.incrementAndGet();
        return Optional.of("account " + id);
    }

    @BloomPut(filter = "user", key = "#result")
    public long save(long id) {
        return id;
    }

    /** Not guarded: a check is never asked for it. */
    public String describe(long id) {
        reads.incrementAndGet();
        return "user " + id;
    }
}
