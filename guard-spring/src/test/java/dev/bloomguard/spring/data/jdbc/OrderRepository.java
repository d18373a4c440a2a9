package dev.bloomguard.spring.data.jdbc;

interface OrderRepository extends GuardedRepository<OrderRow, Long> {
}
