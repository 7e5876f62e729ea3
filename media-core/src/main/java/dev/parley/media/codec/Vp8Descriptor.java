package dev.parley.media.codec;

/**
 * VP8 RTP payload descriptor (RFC 7741 §4.2) parsed from a payload, reusable per stream so parsing does not
 * allocate. Offsets are absolute positions in the array, for in-place rewriting of picture id and TL0PICIDX.
 */
public final class Vp8Descriptor {
    public int length;            // descriptor bytes before the VP8 payload header
    public boolean startOfPartition;
    public int partitionId;
    public boolean keyframe;      // only meaningful when startOfPartition && partitionId == 0
    public int pictureIdBits;     // 0 (absent), 7 or 15
    public int pictureId = -1;
    public int pictureIdOffset = -1;
    public int tl0PicIdx = -1;
    public int tl0PicIdxOffset = -1;
    /** TID (0..3) when the T bit is set, else -1: frames of a higher temporal layer are never referenced by lower ones. */
    public int temporalId = -1;
    /**
     * Y bit (layer sync, only with T): this frame depends on base-layer (TID 0) frames only, so a receiver
     * that did not get the frames of its layer before can start decoding that layer here.
     */
    public boolean layerSync;
    /** KEYIDX when the K bit is set, else -1. */
    public int keyIndex = -1;

    /** Parses the descriptor at b[off, off+len). Returns false if malformed. */
    public boolean parse(byte[] b, int off, int len) {
        pictureIdBits = 0; pictureId = -1; pictureIdOffset = -1; tl0PicIdx = -1; tl0PicIdxOffset = -1; temporalId = -1;
        layerSync = false; keyIndex = -1; keyframe = false;
        if (len < 1) return false;
        int p = off, end = off + len;
        int b0 = b[p++] & 0xFF;
        startOfPartition = (b0 & 0x10) != 0;
        partitionId = b0 & 0x07;
        if ((b0 & 0x80) != 0) {
            if (p >= end) return false;
            int x = b[p++] & 0xFF;
            boolean i = (x & 0x80) != 0, l = (x & 0x40) != 0, t = (x & 0x20) != 0, k = (x & 0x10) != 0;
            if (i) {
                if (p >= end) return false;
                pictureIdOffset = p;
                if ((b[p] & 0x80) != 0) {
                    if (p + 1 >= end) return false;
                    pictureIdBits = 15;
                    pictureId = ((b[p] & 0x7F) << 8) | (b[p + 1] & 0xFF);
                    p += 2;
                } else {
                    pictureIdBits = 7;
                    pictureId = b[p] & 0x7F;
                    p += 1;
                }
            }
            if (l) {
                if (p >= end) return false;
                tl0PicIdxOffset = p;
                tl0PicIdx = b[p++] & 0xFF;
            }
            if (t || k) {
                if (p >= end) return false;
                int tk = b[p++] & 0xFF;
                if (t) { temporalId = tk >>> 6; layerSync = (tk & 0x20) != 0; }
                if (k) keyIndex = tk & 0x1F;
            }
        }
        length = p - off;
        if (startOfPartition && partitionId == 0 && p < end) keyframe = (b[p] & 0x01) == 0;
        return true;
    }

    /** Writes a picture id of the same width as parsed. */
    public static void writePictureId(byte[] b, Vp8Descriptor d, int pictureId) {
        if (d.pictureIdBits == 15) {
            b[d.pictureIdOffset] = (byte) (0x80 | ((pictureId >>> 8) & 0x7F));
            b[d.pictureIdOffset + 1] = (byte) pictureId;
        } else if (d.pictureIdBits == 7) {
            b[d.pictureIdOffset] = (byte) (pictureId & 0x7F);
        }
    }

    public static void writeTl0PicIdx(byte[] b, Vp8Descriptor d, int v) {
        if (d.tl0PicIdxOffset >= 0) b[d.tl0PicIdxOffset] = (byte) v;
    }
}
