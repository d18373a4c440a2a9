package dev.bloomguard.spring.data.jdbc;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

@Table("data_jdbc_orders")
record OrderRow(@Id Long id, int total) {
}
