package dev.bloomguard.core;

/**
 * Redis lost part of a load before its swap (a flush, an eviction or a failover while it ran):
 * the staging bitmap is not the one uploaded, or the journal of adds made while the load read its
 * source is gone. The load was not swapped in; the live filter is as it was. Load again: a fresh
 * read of the source includes what was lost.
 */
public final class IncompleteLoadException extends RuntimeException {

    public IncompleteLoadException(String message) {
        super(message);
    }
}
