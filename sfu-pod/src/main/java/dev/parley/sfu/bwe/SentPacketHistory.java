package dev.parley.sfu.bwe;

/**
 * What we remember about each packet sent with a transport-wide sequence number, until its feedback
 * arrives. A fixed ring of parallel primitive arrays, so recording a send and looking up a feedback
 * entry never allocate.
 *
 * <p>Sequence numbers on the wire are 16 bits; they are unwrapped against the newest sent number so a
 * stale feedback entry from 65536 packets ago can never be mistaken for a fresh one.
 */
final class SentPacketHistory {

    /**
     * 4096 packets: 2 s at 2000 packets/s (16 Mbps), while feedback comes every 50–100 ms; older feedback is
     * useless anyway. About 100 KB per subscriber transport.
     */
    static final int CAPACITY = 1 << 12;
    private static final int MASK = CAPACITY - 1;

    static final byte NOT_REPORTED = 0;
    static final byte REPORTED_LOST = 1;
    static final byte REPORTED_RECEIVED = 2;

    private final long[] seq = new long[CAPACITY];
    private final long[] sendTimeMicros = new long[CAPACITY];
    private final int[] sizeBytes = new int[CAPACITY];
    private final int[] probeClusterId = new int[CAPACITY];
    private final byte[] state = new byte[CAPACITY];
    private long newestSeq = -1;

    SentPacketHistory() {
        java.util.Arrays.fill(seq, -1);
    }

    /** Records a send; returns the slot. {@code probeCluster} is -1 for media. */
    int record(int seq16, long sendMicros, int size, int probeCluster) {
        long unwrapped = unwrap(seq16);
        if (unwrapped > newestSeq) {
            newestSeq = unwrapped;
        }
        int slot = (int) (unwrapped & MASK);
        seq[slot] = unwrapped;
        sendTimeMicros[slot] = sendMicros;
        sizeBytes[slot] = size;
        probeClusterId[slot] = probeCluster;
        state[slot] = NOT_REPORTED;
        return slot;
    }

    /** Slot holding {@code seq16}, or -1 when we never sent it or it has been overwritten. */
    int find(int seq16) {
        if (newestSeq < 0) {
            return -1;
        }
        long unwrapped = unwrap(seq16);
        if (unwrapped < 0) {
            return -1;
        }
        int slot = (int) (unwrapped & MASK);
        return seq[slot] == unwrapped ? slot : -1;
    }

    private long unwrap(int seq16) {
        int s = seq16 & 0xFFFF;
        if (newestSeq < 0) {
            return s;
        }
        int delta = (short) (s - (int) (newestSeq & 0xFFFF));
        return newestSeq + delta;
    }

    long sendTimeMicros(int slot) {
        return sendTimeMicros[slot];
    }

    int sizeBytes(int slot) {
        return sizeBytes[slot];
    }

    int probeClusterId(int slot) {
        return probeClusterId[slot];
    }

    byte state(int slot) {
        return state[slot];
    }

    void setState(int slot, byte newState) {
        state[slot] = newState;
    }
}
