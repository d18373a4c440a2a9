package dev.bloomguard.core;

/** What operators see of a filter. */
public enum FilterState {

    /** Complete in Redis: checks can block absent keys. */
    READY,

    /** Not complete yet, and a load is running here or under another instance's lock: checks are bypassed. */
    WARMING,

    /** Missing or unreadable and nobody is loading it (lost, Redis down): checks are bypassed. */
    DEGRADED
}
