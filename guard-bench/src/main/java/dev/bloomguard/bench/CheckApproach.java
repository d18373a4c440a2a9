package dev.bloomguard.bench;

import java.util.List;

/** One way of asking "might this id exist?", as a user of that library or blog post would write it. */
interface CheckApproach {

    String name();

    /** True when the id may exist. Must do the whole round trip before returning. */
    boolean contains(long id) throws Exception;

    /**
     * How many of {@code ids} may exist, in as few round trips as the approach allows.
     *
     * @throws UnsupportedOperationException when the approach has no batch form
     */
    default int containsAll(List<Long> ids) throws Exception {
        throw new UnsupportedOperationException(name() + " has no batch check");
    }

    /** Whether the batch answer says which ids are present, not just how many. */
    default boolean batchTellsWhich() {
        return false;
    }
}
