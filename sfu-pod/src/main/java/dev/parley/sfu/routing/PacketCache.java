package dev.parley.sfu.routing;

/**
 * The last {@value #SIZE} packets sent on one slot, as plaintext after rewriting, indexed by outgoing sequence
 * number, so a subscriber's NACK is answered without touching the publisher.
 *
 * <p>Each entry's buffer is as large as the largest packet it has held, rounded up to {@value #GRAIN} bytes, and is
 * reused from then on (no allocation per packet once the ring has been round). A fixed 1,500-byte buffer per entry
 * held 768 KB per video slot whatever the layer: about 7 MB per receiver of a six-tile page at the low layer, which
 * filled a 4 GB SFU heap at ~1,100 subscribers in bench/large's 1,000-person meeting. Sized to the packets, a slot at
 * the low simulcast layer (300–500-byte packets) holds about a third of that.
 */
final class PacketCache {
    static final int SIZE = 512;
    static final int MAX_PACKET = 1500;
    /** Buffers grow in steps of this many bytes, so a slightly larger packet does not reallocate every time. */
    static final int GRAIN = 128;
    private final byte[][] data = new byte[SIZE][];
    private final int[] seq = new int[SIZE];
    private final int[] len = new int[SIZE];

    void put(int s, byte[] b, int off, int n) {
        if (n > MAX_PACKET) return;
        int i = s & (SIZE - 1);
        byte[] d = data[i];
        if (d == null || d.length < n) {
            d = data[i] = new byte[Math.min(MAX_PACKET, (n + GRAIN - 1) / GRAIN * GRAIN)];
        }
        System.arraycopy(b, off, d, 0, n);
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

    /** Bytes of packet buffers this cache holds (metrics and tests). */
    long retainedBytes() {
        long sum = 0;
        for (byte[] d : data) if (d != null) sum += d.length;
        return sum;
    }
}
