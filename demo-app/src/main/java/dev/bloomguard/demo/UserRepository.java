package dev.bloomguard.demo;

import java.util.Optional;

import org.springframework.data.repository.CrudRepository;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;

/**
 * The users, a Spring Data JDBC repository guarded by the Bloom filter {@code user}: the README's
 * first example, as it runs. Spring Data implements the interface; the annotations stay on it.
 *
 * <p>An id the filter says is definitely absent never reaches the database: {@code findById}
 * throws {@code BloomGuardRejectedException} (HTTP 404) instead. An absent id the filter lets
 * through (a false positive) costs one query and returns empty. A user saved through
 * {@code save} is added to the filter before {@code save} returns, so it is found right away.
 */
public interface UserRepository extends CrudRepository<User, Long> {

    @BloomGuard(filter = "user", key = "#id")
    Optional<User> findById(Long id);

    @BloomPut(filter = "user", key = "#result.id")
    User save(User user);
}
