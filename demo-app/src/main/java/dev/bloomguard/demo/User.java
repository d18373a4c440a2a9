package dev.bloomguard.demo;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/** A row of the {@code users} table; a new user has no id until the database assigns one. */
@Table("users")
public record User(@Id Long id, String name, String email) {
}
