package dev.bloomguard.spring.data.jdbc;

import org.springframework.data.repository.CrudRepository;

/**
 * The guarded base interface next to {@link CrudRepository}, which declares an unguarded
 * {@code findById(ID)} of its own: the proxy may hand over either declaration.
 */
interface OrderCrudRepository extends GuardedRepository<OrderRow, Long>, CrudRepository<OrderRow, Long> {
}
