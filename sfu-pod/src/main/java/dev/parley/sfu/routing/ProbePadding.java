package dev.parley.sfu.routing;

import dev.parley.media.rtp.RtpPacket;

/**
 * A padding-only RTP packet on a slot's RTX stream (RFC 3550 §5.1 padding, RFC 4588 SSRC): how the SFU fills
 * probe clusters. The receiver counts it for transport-cc and then discards it (an RTX packet without an
 * original sequence number carries nothing), so it can never disturb the video.
 */
final class ProbePadding {
    /** RTP padding is counted in one octet. */
    static final int MAX_PADDING = 255;
    /** Fixed header + one-byte extension header + transport-wide seq (3 bytes, padded to 4). */
    static final int HEADER = 12 + 4 + 4;

    private ProbePadding() {}

    /**
     * Writes the packet into {@code o} for about {@code size} bytes on the wire and returns its length; uses the
     * slot's next RTX sequence number (the caller advances it) and transport seq {@code twccSeq}.
     */
    static int write(byte[] o, Slot s, int twccExtId, int twccSeq, int size) {
        int padding = Math.max(1, Math.min(MAX_PADDING, size - HEADER));
        o[0] = (byte) 0xB0;                               // V=2, P=1, X=1
        o[1] = (byte) (s.rtxPayloadType & 0x7F);
        RtpPacket.setSequence(o, 0, s.rtxSeq & 0xFFFF);
        RtpPacket.setTimestamp(o, 0, s.lastOutTs);
        RtpPacket.setSsrc(o, 0, s.rtxSsrc);
        o[12] = (byte) 0xBE; o[13] = (byte) 0xDE;
        RtpPacket.writeUint16(o, 14, 1);
        o[16] = (byte) ((twccExtId << 4) | 1);
        RtpPacket.writeUint16(o, 17, twccSeq & 0xFFFF);
        o[19] = 0;
        java.util.Arrays.fill(o, HEADER, HEADER + padding - 1, (byte) 0);
        o[HEADER + padding - 1] = (byte) padding;
        return HEADER + padding;
    }

    /**
     * A padding-only packet on the slot's own stream with sequence number {@code seq}: fills the number a dropped
     * temporal-layer packet had reserved ({@link TemporalFilter#FILL}), so the receiver sees no loss. Carries the
     * transport seq when {@code twccExtId > 0}. Returns its length.
     */
    static int writeFill(byte[] o, Slot s, int twccExtId, int twccSeq, int seq, long timestamp) {
        o[0] = (byte) (twccExtId > 0 ? 0xB0 : 0xA0);      // V=2, P=1, X when it carries the transport seq
        o[1] = (byte) (s.payloadType & 0x7F);
        RtpPacket.setSequence(o, 0, seq);
        RtpPacket.setTimestamp(o, 0, timestamp);
        RtpPacket.setSsrc(o, 0, s.ssrc);
        int n = 12;
        if (twccExtId > 0) {
            o[12] = (byte) 0xBE; o[13] = (byte) 0xDE;
            RtpPacket.writeUint16(o, 14, 1);
            o[16] = (byte) ((twccExtId << 4) | 1);
            RtpPacket.writeUint16(o, 17, twccSeq & 0xFFFF);
            o[19] = 0;
            n = HEADER;
        }
        o[n] = 1;                                         // one octet of padding: its own count
        return n + 1;
    }
}
