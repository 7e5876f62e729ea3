package dev.parley.media.rtp;

/**
 * RTP header extensions (RFC 8285): one-byte (0xBEDE) and two-byte (0x100X) forms. Finds an element by
 * its negotiated id and returns its position so callers read or rewrite the value in place.
 * Results are packed into a long ({@code offset << 16 | length}) to avoid allocating.
 */
public final class HeaderExtensions {
    public static final long NOT_FOUND = -1L;

    private HeaderExtensions() {}

    /** Packed (absolute data offset, data length) of extension {@code id}, or {@link #NOT_FOUND}. */
    public static long find(byte[] b, int off, int len, int id) {
        if (id <= 0 || len < RtpPacket.FIXED_HEADER || !RtpPacket.hasExtension(b, off)) return NOT_FOUND;
        int x = off + RtpPacket.FIXED_HEADER + 4 * RtpPacket.csrcCount(b, off);
        if (x + 4 > off + len) return NOT_FOUND;
        int profile = RtpPacket.readUint16(b, x);
        int end = x + 4 + 4 * RtpPacket.readUint16(b, x + 2);
        if (end > off + len) return NOT_FOUND;
        int p = x + 4;
        if (profile == 0xBEDE) {
            while (p < end) {
                int h = b[p] & 0xFF;
                if (h == 0) { p++; continue; }        // padding
                int eid = h >>> 4;
                if (eid == 15) break;                 // reserved: stop parsing
                int elen = (h & 0x0F) + 1;
                if (p + 1 + elen > end) return NOT_FOUND;
                if (eid == id) return ((long) (p + 1) << 16) | elen;
                p += 1 + elen;
            }
        } else if ((profile & 0xFFF0) == 0x1000) {
            while (p < end) {
                int eid = b[p] & 0xFF;
                if (eid == 0) { p++; continue; }
                if (p + 2 > end) return NOT_FOUND;
                int elen = b[p + 1] & 0xFF;
                if (p + 2 + elen > end) return NOT_FOUND;
                if (eid == id) return ((long) (p + 2) << 16) | elen;
                p += 2 + elen;
            }
        }
        return NOT_FOUND;
    }

    public static int offset(long packed) { return (int) (packed >>> 16); }
    public static int length(long packed) { return (int) (packed & 0xFFFF); }

    /** ASCII value of a string extension (mid, rid) or null. Allocates: call only on the slow path. */
    public static String readString(byte[] b, int off, int len, int id) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND) return null;
        return new String(b, offset(f), length(f), java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Compares a string extension to an expected ASCII value without allocating. */
    public static boolean equalsAscii(byte[] b, long found, byte[] expected) {
        if (found == NOT_FOUND || length(found) != expected.length) return false;
        int o = offset(found);
        for (int i = 0; i < expected.length; i++) if (b[o + i] != expected[i]) return false;
        return true;
    }

    /** Audio level (RFC 6464): 0..127 -dBov, or -1. */
    public static int audioLevel(byte[] b, int off, int len, int id) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND || length(f) < 1) return -1;
        return b[offset(f)] & 0x7F;
    }

    /** Transport-wide sequence number, or -1. */
    public static int transportSequence(byte[] b, int off, int len, int id) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND || length(f) < 2) return -1;
        return RtpPacket.readUint16(b, offset(f));
    }

    /** abs-send-time 24-bit 6.18 fixed point seconds, or -1. */
    public static int absSendTime(byte[] b, int off, int len, int id) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND || length(f) < 3) return -1;
        int o = offset(f);
        return ((b[o] & 0xFF) << 16) | ((b[o + 1] & 0xFF) << 8) | (b[o + 2] & 0xFF);
    }

    /** Rewrites an extension value of the same length in place. Returns false if absent or length differs. */
    public static boolean rewrite(byte[] b, int off, int len, int id, byte[] value, int valueLen) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND || length(f) != valueLen) return false;
        System.arraycopy(value, 0, b, offset(f), valueLen);
        return true;
    }

    /** Rewrites a 16-bit value (transport-wide-cc) in place. */
    public static boolean rewriteUint16(byte[] b, int off, int len, int id, int v) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND || length(f) != 2) return false;
        RtpPacket.writeUint16(b, offset(f), v);
        return true;
    }

    /** Rewrites abs-send-time (24 bits) in place. */
    public static boolean rewriteAbsSendTime(byte[] b, int off, int len, int id, int v) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND || length(f) != 3) return false;
        int o = offset(f);
        b[o] = (byte) (v >>> 16); b[o + 1] = (byte) (v >>> 8); b[o + 2] = (byte) v;
        return true;
    }

    /**
     * Blanks an element by turning it into padding (one-byte form) or id 0 (two-byte form), e.g. to drop
     * a publisher's mid before forwarding. Keeps packet length unchanged.
     */
    public static boolean erase(byte[] b, int off, int len, int id) {
        long f = find(b, off, len, id);
        if (f == NOT_FOUND) return false;
        int o = offset(f);
        int l = length(f);
        boolean oneByte = RtpPacket.readUint16(b, off + RtpPacket.FIXED_HEADER + 4 * RtpPacket.csrcCount(b, off)) == 0xBEDE;
        int start = oneByte ? o - 1 : o - 2;
        java.util.Arrays.fill(b, start, o + l, (byte) 0);
        return true;
    }
}
