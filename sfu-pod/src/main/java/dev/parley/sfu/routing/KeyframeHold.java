package dev.parley.sfu.routing;

/**
 * The packets of one video layer since its newest keyframe, kept only while a new subscriber of the layer waits for
 * its connection, from its answer to the end of DTLS (docs/sfu.md "Time to join"). The keyframe asked for then
 * mostly arrives before DTLS is done, when the new subscriber cannot take it yet; without this it was dropped and the
 * subscriber waited a second PLI → keyframe round after connecting (a paced keyframe: 200 ms and more). With it, the
 * keyframe and the frames after it go out the moment the subscriber is connected.
 *
 * <p>A new keyframe start restarts the hold; a hold that would exceed {@link #MAX_PACKETS} or {@link #MAX_BYTES}
 * gives up (nothing is replayed; the subscriber asks for a keyframe as before). Buffers are allocated when a hold
 * starts (join time), not per packet. Media thread only.
 */
final class KeyframeHold {
    static final int MAX_PACKETS = 512;
    static final int MAX_BYTES = 1 << 20;
    /** A hold whose subscribers never connected is dropped this long after the last one's answer or handshake start. */
    static final long KEEP_NANOS = 3_000_000_000L;

    private byte[] data = new byte[64 * 1024];
    private int[] offsets = new int[64];
    private int[] lengths = new int[64];
    private int count, used;
    private boolean started, overflow;
    /** Subscribers waiting for their connection that will take the hold when connected. */
    int waiters;
    /** When the hold ends if nobody took it. */
    long untilNanos;

    /** One packet of the layer as it arrived; {@code keyframeStart}: the first packet of a keyframe. */
    void record(byte[] b, int off, int len, boolean keyframeStart) {
        if (keyframeStart) {
            count = 0;
            used = 0;
            started = true;
            overflow = false;
        }
        if (!started || overflow) return;
        if (count == MAX_PACKETS || used + len > MAX_BYTES) {
            overflow = true;
            return;
        }
        if (count == offsets.length) {
            offsets = java.util.Arrays.copyOf(offsets, count * 2);
            lengths = java.util.Arrays.copyOf(lengths, count * 2);
        }
        if (used + len > data.length) data = java.util.Arrays.copyOf(data, Math.min(MAX_BYTES, Math.max(data.length * 2, used + len)));
        System.arraycopy(b, off, data, used, len);
        offsets[count] = used;
        lengths[count] = len;
        count++;
        used += len;
    }

    /** Whether there is a whole run from a keyframe start to hand out. */
    boolean ready() { return started && !overflow && count > 0; }

    int count() { return count; }

    byte[] data() { return data; }

    int offset(int i) { return offsets[i]; }

    int length(int i) { return lengths[i]; }
}
