package dev.bloomguard.spring.data.jdbc;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.CrudRepository;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;

/** The README's shape: a repository interface the application declares and Spring Data implements. */
interface AccountRepository extends CrudRepository<AccountRow, Long> {

    @BloomGuard(filter = "account", key = "#id")
    Optional<AccountRow> findById(Long id);

    @BloomGuard(filter = "account-email", key = "#email")
    Optional<AccountRow> findByEmail(String email);

    @BloomPut(filter = "account", key = "#result.id")
    AccountRow save(AccountRow account);

    @BloomPut(filter = "account", key = "#result.![id]")
    <S extends AccountRow> List<S> saveAll(Iterable<S> accounts);

    /** Every id, read from a cursor: the key source of filter {@code account-stream}. */
    @Query("SELECT id FROM data_jdbc_accounts")
    Stream<Long> streamAllIds();
}
