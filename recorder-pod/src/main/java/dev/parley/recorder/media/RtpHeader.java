package dev.parley.recorder.media;

/** Reads and rewrites the fixed RTP header in place (RFC 3550 section 5.1). No allocation. */
public final class RtpHeader {
    public static final int MIN_LEN = 12;

    private RtpHeader() {
    }

    /** True if the bytes look like RTP version 2 with a complete header (incl. CSRCs and extension). */
    public static boolean valid(byte[] b, int off, int len) {
        if (len < MIN_LEN || (b[off] & 0xC0) != 0x80) {
            return false;
        }
        int pt = b[off + 1] & 0x7F;
        if (pt >= 72 && pt <= 76) { // RTCP SR/RR/SDES/BYE/APP on a muxed port
            return false;
        }
        return payloadOffset(b, off, len) >= 0;
    }

    /** Offset (relative to {@code off}) of the payload, or -1 if the header is truncated. */
    public static int payloadOffset(byte[] b, int off, int len) {
        int cc = b[off] & 0x0F;
        int p = MIN_LEN + 4 * cc;
        if (p > len) {
            return -1;
        }
        if ((b[off] & 0x10) != 0) {
            if (p + 4 > len) {
                return -1;
            }
            int extWords = ((b[off + p + 2] & 0xFF) << 8) | (b[off + p + 3] & 0xFF);
            p += 4 + 4 * extWords;
            if (p > len) {
                return -1;
            }
        }
        int end = len;
        if ((b[off] & 0x20) != 0) { // padding
            end -= b[off + len - 1] & 0xFF;
        }
        return end < p ? -1 : p;
    }

    /** Payload length without padding (assumes {@link #valid}). */
    public static int payloadLength(byte[] b, int off, int len) {
        int end = (b[off] & 0x20) != 0 ? len - (b[off + len - 1] & 0xFF) : len;
        return end - payloadOffset(b, off, len);
    }

    public static boolean marker(byte[] b, int off) {
        return (b[off + 1] & 0x80) != 0;
    }

    public static int payloadType(byte[] b, int off) {
        return b[off + 1] & 0x7F;
    }

    public static int seq(byte[] b, int off) {
        return ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF);
    }

    public static long timestamp(byte[] b, int off) {
        return ((long) (b[off + 4] & 0xFF) << 24) | ((b[off + 5] & 0xFF) << 16) | ((b[off + 6] & 0xFF) << 8)
                | (b[off + 7] & 0xFF);
    }

    public static long ssrc(byte[] b, int off) {
        return ((long) (b[off + 8] & 0xFF) << 24) | ((b[off + 9] & 0xFF) << 16) | ((b[off + 10] & 0xFF) << 8)
                | (b[off + 11] & 0xFF);
    }

    public static void setSeq(byte[] b, int off, int seq) {
        b[off + 2] = (byte) (seq >>> 8);
        b[off + 3] = (byte) seq;
    }

    public static void setTimestamp(byte[] b, int off, long ts) {
        b[off + 4] = (byte) (ts >>> 24);
        b[off + 5] = (byte) (ts >>> 16);
        b[off + 6] = (byte) (ts >>> 8);
        b[off + 7] = (byte) ts;
    }

    public static void setSsrc(byte[] b, int off, long ssrc) {
        b[off + 8] = (byte) (ssrc >>> 24);
        b[off + 9] = (byte) (ssrc >>> 16);
        b[off + 10] = (byte) (ssrc >>> 8);
        b[off + 11] = (byte) ssrc;
    }
}
