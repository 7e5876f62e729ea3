package dev.parley.media.srtp;

/** 64-entry sliding replay window over a 48-bit (SRTP) or 31-bit (SRTCP) packet index (RFC 3711 §3.3.2). */
final class ReplayWindow {
    private long top = -1;
    private long mask;

    boolean isReplay(long index) {
        if (top < 0 || index > top) return false;
        long d = top - index;
        return d >= 64 || (mask & (1L << d)) != 0;
    }

    void accept(long index) {
        if (top < 0) { top = index; mask = 1; return; }
        if (index > top) {
            long shift = index - top;
            mask = shift >= 64 ? 1 : (mask << shift) | 1;
            top = index;
        } else {
            mask |= 1L << (top - index);
        }
    }
}
