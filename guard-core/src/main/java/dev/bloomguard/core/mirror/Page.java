package dev.bloomguard.core.mirror;

/**
 * One page of a {@link BitmapMirror}'s copy of the bitmap, in Redis bit order, with what the
 * mirror needs to know about the moment its image was read.
 */
final class Page {

    /** Copied in the constructor, so that a thread that reads the page from the table sees all of it. */
    final byte[] bytes;
    /** The add counter of this page's stripe, and the swaps, when its image was read. */
    final long appliedSeen;
    final long swapsSeen;
    /** {@link System#nanoTime} when this image was made: past {@code refresh-after}, the table no longer answers from it. */
    final long readAt;
    /** When the mirror last asked for this page again; 0 never. */
    volatile long readAgainAskedAt;
    /** The cache no longer holds this page (evicted, dropped or replaced): the table must not answer from it. */
    private volatile boolean gone;

    Page(int size, byte[] image, long appliedSeen, long swapsSeen) {
        this.bytes = new byte[size];
        System.arraycopy(image, 0, bytes, 0, Math.min(image.length, size));
        this.appliedSeen = appliedSeen;
        this.swapsSeen = swapsSeen;
        this.readAt = System.nanoTime();
    }

    boolean gone() {
        return gone;
    }

    /** Told before the cache drops or replaces this page. */
    void replaced() {
        gone = true;
    }

    boolean get(long bit) {
        return (bytes[(int) (bit >>> 3)] & (0x80 >>> (bit & 7))) != 0;
    }

    synchronized void set(long bit) {
        bytes[(int) (bit >>> 3)] |= (byte) (0x80 >>> (bit & 7));
    }
}
