package dev.bloomguard.demo;

import java.util.Optional;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;

/**
 * The users, guarded by the Bloom filter {@code user}.
 *
 * <p>The annotations sit on the interface, where callers see them; the starter finds them here
 * even though the proxy wraps {@link JdbcUserRepository}.
 */
public interface UserRepository {

    /**
     * An id the filter says is definitely absent never reaches the database: the call throws
     * {@code BloomGuardRejectedException} (HTTP 404) instead. An absent id the filter lets
     * through (a false positive) costs one query and returns empty.
     */
    @BloomGuard(filter = "user", key = "#id")
    Optional<User> findById(long id);

    /** Inserts a user with a new id and adds the id to the filter, so that it is found right away. */
    @BloomPut(filter = "user", key = "#result.id")
    User create(String name, String email);

    /** How many queries this repository has sent to the database since startup. */
    long databaseQueries();
}
