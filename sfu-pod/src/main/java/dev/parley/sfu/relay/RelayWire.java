package dev.parley.sfu.relay;

import dev.parley.media.rtp.HeaderExtensions;
import dev.parley.media.rtp.RtpPacket;

/**
 * The relay's RTP form (docs/internal-api.md "Relays between SFUs"): the publisher's packet with the relay's wire
 * SSRC for its layer, a fixed payload type per codec (so the receiver learns the codec from the first packet), no
 * CSRCs, and only one header extension — the audio level (RFC 6464) as one-byte id {@value #AUDIO_LEVEL_ID} — so
 * the receiving SFU needs none of the publisher's SDP. Sequence numbers and timestamps are the publisher's.
 * No allocation.
 */
public final class RelayWire {
    public static final int AUDIO_LEVEL_ID = 1;
    public static final int PT_OPUS = 111, PT_VP8 = 96, PT_VP9 = 98, PT_H264 = 102;

    private RelayWire() {}

    /** The wire payload type of a codec ({@code opus | VP8 | VP9 | H264}), -1 for anything else. */
    public static int payloadType(String codec) {
        return switch (codec) {
            case "opus" -> PT_OPUS;
            case "VP8" -> PT_VP8;
            case "VP9" -> PT_VP9;
            case "H264" -> PT_H264;
            default -> -1;
        };
    }

    /** The codec of a wire payload type, null if none. */
    public static String codec(int pt) {
        return switch (pt) {
            case PT_OPUS -> "opus";
            case PT_VP8 -> "VP8";
            case PT_VP9 -> "VP9";
            case PT_H264 -> "H264";
            default -> null;
        };
    }

    public static boolean video(String codec) { return !"opus".equals(codec); }

    public static int clockRate(String codec) { return "opus".equals(codec) ? 48_000 : 90_000; }

    /**
     * Writes the wire form of the RTP packet {@code b[off, off+len)} (header length {@code hl}) into {@code dst}
     * (which must have room for len + 8 bytes and the SRTP tag). {@code levelExtId}: the publisher's audio-level
     * extension id (0 = none). Returns the wire length.
     */
    public static int write(byte[] b, int off, int len, int hl, byte[] dst, int wireSsrc, int wirePt, int levelExtId) {
        int level = levelExtId > 0 ? HeaderExtensions.audioLevel(b, off, len, levelExtId) : -1;
        dst[0] = (byte) (b[off] & 0xA0);                   // version 2 and padding kept; no CSRCs, X set below
        dst[1] = (byte) ((b[off + 1] & 0x80) | wirePt);    // marker kept
        System.arraycopy(b, off + 2, dst, 2, 6);           // sequence number, timestamp
        RtpPacket.setSsrc(dst, 0, wireSsrc);
        int p = 12;
        if (level >= 0) {
            dst[0] |= 0x10;
            dst[12] = (byte) 0xBE; dst[13] = (byte) 0xDE; dst[14] = 0; dst[15] = 1;
            dst[16] = (byte) (AUDIO_LEVEL_ID << 4);         // id 1, one byte
            dst[17] = (byte) level;                         // 0..127 dBov (the V bit is not carried)
            dst[18] = 0; dst[19] = 0;
            p = 20;
        }
        int body = len - hl;
        System.arraycopy(b, off + hl, dst, p, body);
        return p + body;
    }

    /** RTCP APP name of the receiver's tile report: "PTIL". */
    static final int TILE_NAME = 'P' << 24 | 'T' << 16 | 'I' << 8 | 'L';
    /** Length of a tile report. */
    static final int TILE_LENGTH = 20;

    /**
     * The receiving SFU's tile report for one relayed track (RTCP APP, RFC 3550 §6.7, name "PTIL"): the wire SSRC of
     * the track's layer 0 and the largest tile shown behind the relay (16-bit width and height, 65535 = any size).
     * The origin sends only the layers such a tile needs. Returns the length written.
     */
    public static int writeTile(byte[] b, int o, int senderSsrc, int trackSsrc, long tile) {
        int w = (int) Math.min(0xFFFF, tile >>> 32), h = (int) Math.min(0xFFFF, tile & 0xFFFFFFFFL);
        b[o] = (byte) 0x80;                                // V=2, subtype 0
        b[o + 1] = (byte) 204;                             // APP
        b[o + 2] = 0; b[o + 3] = 4;                        // 5 words
        RtpPacket.writeUint32(b, o + 4, senderSsrc);
        RtpPacket.writeUint32(b, o + 8, TILE_NAME);
        RtpPacket.writeUint32(b, o + 12, trackSsrc);
        b[o + 16] = (byte) (w >>> 8); b[o + 17] = (byte) w;
        b[o + 18] = (byte) (h >>> 8); b[o + 19] = (byte) h;
        return TILE_LENGTH;
    }

    /** Whether the RTCP packet at {@code o} (block length {@code blen}) is a tile report. */
    public static boolean isTile(byte[] b, int o, int blen) {
        return (b[o + 1] & 0xFF) == 204 && blen >= TILE_LENGTH && (int) RtpPacket.readUint32(b, o + 8) == TILE_NAME;
    }

    public static int tileTrackSsrc(byte[] b, int o) { return (int) RtpPacket.readUint32(b, o + 12); }

    /** The reported tile as {@code width << 32 | height}, 65535 read as any size. */
    public static long tile(byte[] b, int o) {
        int w = RtpPacket.readUint16(b, o + 16), h = RtpPacket.readUint16(b, o + 18);
        return (long) (w == 0xFFFF ? Integer.MAX_VALUE : w) << 32 | (h == 0xFFFF ? Integer.MAX_VALUE : h);
    }
}
