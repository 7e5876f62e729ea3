package dev.parley.media.codec;

/**
 * VP9 RTP payload descriptor (RFC 9628 §4.2) parsed from a payload, reusable per stream so parsing does not
 * allocate (the scalability-structure arrays are sized once for the 8 spatial layers N_S can name). Offsets are
 * absolute positions in the array, for in-place rewriting of picture id and TL0PICIDX.
 *
 * <pre>
 *  |I|P|L|F|B|E|V|Z|           always
 *  |M| PICTURE ID  | [ID]      if I (15 bits when M)
 *  |TID|U| SID |D|             if L
 *  |  TL0PICIDX    |           if L and not F (non-flexible mode)
 *  | P_DIFF    |N|             if P and F, up to 3 (N: another follows)
 *  |  SS ...       |           if V
 * </pre>
 */
public final class Vp9Descriptor {
    /** Most spatial layers an SS can describe (N_S is 3 bits). */
    public static final int MAX_SPATIAL = 8;

    public int length;                 // descriptor bytes before the VP9 payload
    /** P: the layer frame references an earlier picture (0 on a keyframe's layers in k-SVC). */
    public boolean interPicturePredicted;
    /** F: flexible mode (references as P_DIFFs) rather than non-flexible (GOF in the SS, TL0PICIDX). */
    public boolean flexible;
    /** B / E: the packet starts / ends a layer frame. */
    public boolean startOfFrame, endOfFrame;
    /** Z: no higher spatial layer of this picture references this layer frame. */
    public boolean notReferencedByUpper;
    public int pictureIdBits;          // 0 (absent), 7 or 15
    public int pictureId = -1;
    public int pictureIdOffset = -1;
    /** Layer indices (L): TID 0..7 and SID 0..7, or -1 without them (a single-layer stream). */
    public int temporalId = -1, spatialId = -1;
    /** U: switching-up point (libwebrtc sets it where this temporal layer can be joined from below). */
    public boolean switchingUp;
    /** D: this layer frame depends on the next lower spatial layer of the same picture. */
    public boolean interLayerDependent;
    public int tl0PicIdx = -1;
    public int tl0PicIdxOffset = -1;
    /** Flexible mode: how many P_DIFFs (0..3) and their values (reference = picture id - P_DIFF). */
    public int referenceCount;
    public final int[] pDiff = new int[3];

    /** V: a scalability structure is present; its spatial layer count (N_S + 1) and, with Y, their sizes. */
    public boolean ssPresent;
    public int ssSpatialLayers;
    public boolean ssResolutions;
    public final int[] ssWidth = new int[MAX_SPATIAL], ssHeight = new int[MAX_SPATIAL];
    /** G: pictures in the SS's group of frames (N_G), 0 when absent. */
    public int ssGroupPictures;

    /** SID of the packet, 0 for a stream without layer indices. */
    public int sid() { return spatialId < 0 ? 0 : spatialId; }

    /** TID of the packet, 0 for a stream without layer indices. */
    public int tid() { return temporalId < 0 ? 0 : temporalId; }

    /** The packet starts a picture: the first packet of its lowest spatial layer frame. */
    public boolean startOfPicture() { return startOfFrame && sid() == 0; }

    /** The packet starts an intra-coded picture: its base layer references nothing earlier. */
    public boolean keyframe() { return startOfPicture() && !interPicturePredicted; }

    /** Parses the descriptor at b[off, off+len). Returns false if malformed. */
    public boolean parse(byte[] b, int off, int len) {
        pictureIdBits = 0; pictureId = -1; pictureIdOffset = -1; temporalId = -1; spatialId = -1;
        switchingUp = false; interLayerDependent = false; tl0PicIdx = -1; tl0PicIdxOffset = -1; referenceCount = 0;
        ssPresent = false; ssSpatialLayers = 0; ssResolutions = false; ssGroupPictures = 0;
        if (len < 1) return false;
        int p = off, end = off + len;
        int b0 = b[p++] & 0xFF;
        boolean i = (b0 & 0x80) != 0, l = (b0 & 0x20) != 0, v = (b0 & 0x02) != 0;
        interPicturePredicted = (b0 & 0x40) != 0;
        flexible = (b0 & 0x10) != 0;
        startOfFrame = (b0 & 0x08) != 0;
        endOfFrame = (b0 & 0x04) != 0;
        notReferencedByUpper = (b0 & 0x01) != 0;
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
                pictureId = b[p++] & 0x7F;
            }
        }
        if (l) {
            if (p >= end) return false;
            int x = b[p++] & 0xFF;
            temporalId = x >>> 5;
            switchingUp = (x & 0x10) != 0;
            spatialId = (x >>> 1) & 0x07;
            interLayerDependent = (x & 0x01) != 0;
            if (!flexible) {
                if (p >= end) return false;
                tl0PicIdxOffset = p;
                tl0PicIdx = b[p++] & 0xFF;
            }
        }
        if (flexible && interPicturePredicted) {
            boolean more = true;
            while (more) {
                if (referenceCount == 3 || p >= end) return false;   // at most 3 references
                int x = b[p++] & 0xFF;
                pDiff[referenceCount++] = x >>> 1;
                more = (x & 0x01) != 0;
            }
        }
        if (v) {
            if (p >= end) return false;
            int x = b[p++] & 0xFF;
            ssPresent = true;
            ssSpatialLayers = (x >>> 5) + 1;
            ssResolutions = (x & 0x10) != 0;
            boolean g = (x & 0x08) != 0;
            if (ssResolutions) {
                if (end - p < 4 * ssSpatialLayers) return false;
                for (int s = 0; s < ssSpatialLayers; s++) {
                    ssWidth[s] = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
                    ssHeight[s] = ((b[p + 2] & 0xFF) << 8) | (b[p + 3] & 0xFF);
                    p += 4;
                }
            }
            if (g) {
                if (p >= end) return false;
                ssGroupPictures = b[p++] & 0xFF;
                for (int k = 0; k < ssGroupPictures; k++) {
                    if (p >= end) return false;
                    int refs = (b[p++] >>> 2) & 0x03;
                    if (end - p < refs) return false;
                    p += refs;
                }
            }
        }
        length = p - off;
        return true;
    }

    /** Writes a picture id of the same width as parsed. */
    public static void writePictureId(byte[] b, Vp9Descriptor d, int pictureId) {
        if (d.pictureIdBits == 15) {
            b[d.pictureIdOffset] = (byte) (0x80 | ((pictureId >>> 8) & 0x7F));
            b[d.pictureIdOffset + 1] = (byte) pictureId;
        } else if (d.pictureIdBits == 7) {
            b[d.pictureIdOffset] = (byte) (pictureId & 0x7F);
        }
    }

    public static void writeTl0PicIdx(byte[] b, Vp9Descriptor d, int v) {
        if (d.tl0PicIdxOffset >= 0) b[d.tl0PicIdxOffset] = (byte) v;
    }
}
