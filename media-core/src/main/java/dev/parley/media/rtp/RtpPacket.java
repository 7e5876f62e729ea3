package dev.parley.media.rtp;

/**
 * Reads and rewrites RTP fixed-header fields in place on a byte array (RFC 3550 §5.1).
 * Static accessors keep the forwarding path free of per-packet objects.
 */
public final class RtpPacket {
    public static final int FIXED_HEADER = 12;

    private RtpPacket() {}

    /** True when the bytes look like RTP or RTCP (version 2, long enough). */
    public static boolean isRtpOrRtcp(byte[] b, int off, int len) {
        return len >= FIXED_HEADER && (b[off] & 0xC0) == 0x80;
    }

    /** RFC 5761 §4: with rtcp-mux, payload types 64-95 (marker bit folded) are RTCP. */
    public static boolean isRtcp(byte[] b, int off, int len) {
        if (len < 8) return false;
        int pt = b[off + 1] & 0xFF;
        return pt >= 192 && pt <= 223;
    }

    public static boolean hasPadding(byte[] b, int off) { return (b[off] & 0x20) != 0; }
    public static boolean hasExtension(byte[] b, int off) { return (b[off] & 0x10) != 0; }
    public static int csrcCount(byte[] b, int off) { return b[off] & 0x0F; }
    public static boolean marker(byte[] b, int off) { return (b[off + 1] & 0x80) != 0; }
    public static int payloadType(byte[] b, int off) { return b[off + 1] & 0x7F; }
    public static int sequence(byte[] b, int off) { return ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF); }
    public static long timestamp(byte[] b, int off) { return readUint32(b, off + 4); }
    public static int ssrc(byte[] b, int off) { return (int) readUint32(b, off + 8); }

    public static void setPayloadType(byte[] b, int off, int pt) { b[off + 1] = (byte) ((b[off + 1] & 0x80) | (pt & 0x7F)); }
    public static void setSequence(byte[] b, int off, int seq) { b[off + 2] = (byte) (seq >>> 8); b[off + 3] = (byte) seq; }
    public static void setTimestamp(byte[] b, int off, long ts) { writeUint32(b, off + 4, ts); }
    public static void setSsrc(byte[] b, int off, int ssrc) { writeUint32(b, off + 8, ssrc & 0xFFFFFFFFL); }

    /**
     * Length of the header including CSRCs and the extension block, or -1 when the packet is
     * shorter than its header claims.
     */
    public static int headerLength(byte[] b, int off, int len) {
        if (len < FIXED_HEADER) return -1;
        int h = FIXED_HEADER + 4 * csrcCount(b, off);
        if (hasExtension(b, off)) {
            if (len < h + 4) return -1;
            int words = ((b[off + h + 2] & 0xFF) << 8) | (b[off + h + 3] & 0xFF);
            h += 4 + 4 * words;
        }
        return h <= len ? h : -1;
    }

    /** Payload length without padding, or -1 if malformed. */
    public static int payloadLength(byte[] b, int off, int len) {
        int h = headerLength(b, off, len);
        if (h < 0) return -1;
        int pad = 0;
        if (hasPadding(b, off)) {
            pad = b[off + len - 1] & 0xFF;
            if (pad == 0 || h + pad > len) return -1;
        }
        return len - h - pad;
    }

    public static long readUint32(byte[] b, int o) {
        return ((long) (b[o] & 0xFF) << 24) | ((b[o + 1] & 0xFF) << 16) | ((b[o + 2] & 0xFF) << 8) | (b[o + 3] & 0xFF);
    }

    public static void writeUint32(byte[] b, int o, long v) {
        b[o] = (byte) (v >>> 24); b[o + 1] = (byte) (v >>> 16); b[o + 2] = (byte) (v >>> 8); b[o + 3] = (byte) v;
    }

    public static int readUint16(byte[] b, int o) { return ((b[o] & 0xFF) << 8) | (b[o + 1] & 0xFF); }

    public static void writeUint16(byte[] b, int o, int v) { b[o] = (byte) (v >>> 8); b[o + 1] = (byte) v; }

    /** Signed distance a-b between two 16-bit sequence numbers (wraps). */
    public static int seqDelta(int a, int b) { return (short) (a - b); }
}
