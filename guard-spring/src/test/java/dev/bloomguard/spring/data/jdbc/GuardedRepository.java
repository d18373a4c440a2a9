package dev.bloomguard.spring.data.jdbc;

import java.util.Optional;

import org.springframework.data.repository.NoRepositoryBean;
import org.springframework.data.repository.Repository;

import dev.bloomguard.spring.BloomGuard;

/** The guard declared once on a generic base interface, for every repository that extends it. */
@NoRepositoryBean
interface GuardedRepository<T, ID> extends Repository<T, ID> {

    @BloomGuard(filter = "order", key = "#id")
    Optional<T> findById(ID id);
}
