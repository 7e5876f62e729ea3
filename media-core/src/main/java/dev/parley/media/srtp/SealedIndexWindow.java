package dev.parley.media.srtp;

/**
 * The packet indices one AEAD sender already sealed, over the last {@value #SIZE}: AES-GCM must never seal two
 * packets under one nonce (RFC 7714 §8.4; a second packet with the same SSRC and index but another header, e.g.
 * a retransmission with a fresh transport-wide sequence number, would give away the authentication key). The
 * size matches the replay window WebRTC receivers keep, so anything older would be dropped by them anyway.
 */
final class SealedIndexWindow {
    static final int SIZE = 1024;
    private final long[] bits = new long[SIZE / 64];
    private long top = -1;

    /** True (and the index is recorded) if {@code index} was not sealed before and is within the window. */
    boolean claim(long index) {
        if (top < 0 || index > top) {
            long shift = top < 0 ? SIZE : index - top;
            if (shift >= SIZE) java.util.Arrays.fill(bits, 0);
            else for (long i = top + 1; i <= index - 1; i++) clear(i);   // indices skipped over: never sealed
            top = index;
            set(index);
            return true;
        }
        if (top - index >= SIZE || isSet(index)) return false;
        set(index);
        return true;
    }

    private boolean isSet(long i) { return (bits[(int) ((i >>> 6) & (SIZE / 64 - 1))] & (1L << (i & 63))) != 0; }
    private void set(long i) { bits[(int) ((i >>> 6) & (SIZE / 64 - 1))] |= 1L << (i & 63); }
    private void clear(long i) { bits[(int) ((i >>> 6) & (SIZE / 64 - 1))] &= ~(1L << (i & 63)); }
}
