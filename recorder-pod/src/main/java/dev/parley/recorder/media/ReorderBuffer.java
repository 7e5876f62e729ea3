package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;

/**
 * Puts one track's stitched RTP back into sequence order before depacketizing. Two legs (old and new SFU) deliver
 * the same stream with different delays, and a network may reorder; the depacketizer drops a frame at any hole.
 * In-order packets pass straight through; a packet after a hole waits until the hole fills (from either leg) or
 * for at most {@code maxWaitNanos}, after which the hole counts as loss. Preallocated slots, single-threaded, no
 * allocation per packet.
 */
public final class ReorderBuffer {
    /** Receives packets in sequence order; the bytes are valid during the call only. */
    @FunctionalInterface
    public interface Out {
        void emit(byte[] b, int len);
    }

    private final int size;
    private final long maxWaitNanos;
    private final byte[][] pkt;
    private final int[] len;
    private final long[] arrival;
    private final boolean[] present;
    private long next = -1;
    private int held;
    private long late;
    private long skipped;

    public ReorderBuffer(int size, long maxWaitNanos) {
        if (Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("size must be a power of two");
        }
        this.size = size;
        this.maxWaitNanos = maxWaitNanos;
        this.pkt = new byte[size][SpscPacketRing.MAX_PACKET];
        this.len = new int[size];
        this.arrival = new long[size];
        this.present = new boolean[size];
    }

    /** Offers a packet (valid RTP, already in the output numbering). */
    public void push(byte[] b, int n, long now, Out out) {
        int seq = RtpPacket.sequence(b, 0);
        if (next < 0) {
            next = seq + 65536L;
        }
        long ext = next + (short) (seq - (int) (next & 0xFFFF));
        if (ext < next) {
            late++; // its hole was already given up
            return;
        }
        if (ext == next && held == 0) {
            out.emit(b, n);
            next++;
            return;
        }
        while (ext - next >= size) {
            skipOne(out); // too far ahead to wait: give up the oldest hole
        }
        int i = (int) (ext & (size - 1));
        if (!present[i]) {
            System.arraycopy(b, 0, pkt[i], 0, n);
            len[i] = n;
            arrival[i] = now;
            present[i] = true;
            held++;
        }
        drain(out);
    }

    /** Gives up holes whose later packets waited {@code maxWaitNanos}; call regularly. */
    public void tick(long now, Out out) {
        while (held > 0 && now - oldestArrival() > maxWaitNanos) {
            skipOne(out);
        }
    }

    /** End of stream: everything held goes out in order. */
    public void flush(Out out) {
        while (held > 0) {
            skipOne(out);
        }
    }

    public long late() {
        return late;
    }

    public long skipped() {
        return skipped;
    }

    private long oldestArrival() {
        long oldest = Long.MAX_VALUE;
        for (int k = 0; k < size; k++) {
            int i = (int) ((next + k) & (size - 1));
            if (present[i]) {
                oldest = Math.min(oldest, arrival[i]);
            }
        }
        return oldest;
    }

    /** Moves past the hole at {@code next} (or emits it if present) and drains what follows. */
    private void skipOne(Out out) {
        int i = (int) (next & (size - 1));
        if (present[i]) {
            present[i] = false;
            held--;
            out.emit(pkt[i], len[i]);
        } else {
            skipped++;
        }
        next++;
        drain(out);
    }

    private void drain(Out out) {
        int i = (int) (next & (size - 1));
        while (present[i]) {
            present[i] = false;
            held--;
            out.emit(pkt[i], len[i]);
            next++;
            i = (int) (next & (size - 1));
        }
    }
}
