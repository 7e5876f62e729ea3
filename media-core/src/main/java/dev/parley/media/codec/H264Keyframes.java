package dev.parley.media.codec;

/** Detects H.264 keyframes (IDR or SPS) in an RTP payload (RFC 6184: single NAL, STAP-A, FU-A). */
public final class H264Keyframes {
    private H264Keyframes() {}

    public static boolean isKeyframe(byte[] b, int off, int len) {
        if (len < 1) return false;
        int type = b[off] & 0x1F;
        if (type == 5 || type == 7) return true;
        if (type == 24) {                        // STAP-A: 16-bit size + NAL, repeated
            int p = off + 1, end = off + len;
            while (p + 2 < end) {
                int size = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
                if (size == 0 || p + 2 + size > end) return false;
                int t = b[p + 2] & 0x1F;
                if (t == 5 || t == 7) return true;
                p += 2 + size;
            }
            return false;
        }
        if (type == 28 && len >= 2) {            // FU-A start fragment of an IDR
            return (b[off + 1] & 0x80) != 0 && (b[off + 1] & 0x1F) == 5;
        }
        return false;
    }
}
