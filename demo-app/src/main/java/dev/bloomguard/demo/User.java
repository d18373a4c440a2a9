package dev.bloomguard.demo;

/** A row of the {@code users} table. */
public record User(long id, String name, String email) {
}
