package dev.parley.media.ice;

/** RFC 4571 framing for ICE-TCP (RFC 6544): each packet is preceded by its 16-bit length. */
public final class TcpFraming {
    public static final int MAX_FRAME = 0xFFFF;

    private TcpFraming() {}

    /** Writes the 2-byte length prefix at {@code off}; returns bytes written. */
    public static int writePrefix(byte[] b, int off, int len) {
        if (len > MAX_FRAME) throw new IllegalArgumentException("frame too large");
        b[off] = (byte) (len >>> 8);
        b[off + 1] = (byte) len;
        return 2;
    }
}
