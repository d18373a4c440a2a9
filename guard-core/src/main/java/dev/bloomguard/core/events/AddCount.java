package dev.bloomguard.core.events;

/**
 * Where an add stands in its writer's count of adds to a shard ({@code FilterKeys#addCount}, the
 * field named by the writer's instance id): the count after the add, and how many keys the add
 * counted. Every add's count is in Redis whether or not its message ({@link FilterEvents}) arrives.
 */
public record AddCount(String writer, long count, int added) {
}
