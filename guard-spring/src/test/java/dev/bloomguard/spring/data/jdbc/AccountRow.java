package dev.bloomguard.spring.data.jdbc;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

@Table("data_jdbc_accounts")
record AccountRow(@Id Long id, String email) {
}
