package dev.parley.sfu.routing;

/**
 * The last {@value #SIZE} packets sent on one slot, as plaintext after rewriting, indexed by outgoing sequence
 * number, so a subscriber's NACK is answered without touching the publisher. Buffers are allocated once.
 */
final class PacketCache {
    static final int SIZE = 512;
    private static final int MAX_PACKET = 1500;
    private final byte[][] data = new byte[SIZE][];
    private final int[] seq = new int[SIZE];
    private final int[] len = new int[SIZE];

    void put(int s, byte[] b, int off, int n) {
        if (n > MAX_PACKET) return;
        int i = s & (SIZE - 1);
        if (data[i] == null) data[i] = new byte[MAX_PACKET];
        System.arraycopy(b, off, data[i], 0, n);
        seq[i] = s;
        len[i] = n;
    }

    /** Copies packet {@code s} into {@code out}; returns its length or -1 if it is no longer cached. */
    int get(int s, byte[] out) {
        int i = s & (SIZE - 1);
        if (len[i] == 0 || seq[i] != s) return -1;
        System.arraycopy(data[i], 0, out, 0, len[i]);
        return len[i];
    }
}
