package dev.parley.media.rtp;

/**
 * RTP retransmission payload format (RFC 4588 §4): an RTX packet is the original packet's header with the RTX
 * payload type, RTX SSRC and the RTX stream's own sequence number, followed by the original sequence number
 * (OSN, 2 bytes) and the original payload. Header extensions and padding are carried over unchanged.
 * Works on caller-owned arrays: nothing is allocated.
 */
public final class Rtx {
    /** Bytes an RTX packet adds to the original (the OSN field). */
    public static final int OVERHEAD = 2;

    private Rtx() {}

    /**
     * Writes the RTX form of the RTP packet {@code src[off..off+len)} into {@code dst} at 0.
     * @return the RTX packet length, or -1 if the original is malformed or {@code dst} is too small
     */
    public static int wrap(byte[] src, int off, int len, byte[] dst, int rtxPayloadType, int rtxSsrc, int rtxSeq) {
        int hl = RtpPacket.headerLength(src, off, len);
        if (hl < 0 || len + OVERHEAD > dst.length) return -1;
        int osn = RtpPacket.sequence(src, off);
        System.arraycopy(src, off + hl, dst, hl + OVERHEAD, len - hl);   // payload (and padding) first: src may be dst
        System.arraycopy(src, off, dst, 0, hl);
        RtpPacket.writeUint16(dst, hl, osn);
        RtpPacket.setPayloadType(dst, 0, rtxPayloadType);
        RtpPacket.setSequence(dst, 0, rtxSeq);
        RtpPacket.setSsrc(dst, 0, rtxSsrc);
        return len + OVERHEAD;
    }

    /**
     * Restores the original packet from the RTX packet {@code b[off..off+len)} into {@code dst} at 0, with the
     * original stream's payload type and SSRC.
     * @return the original packet length, or -1 when the packet is malformed, padding only (RTX probes carry
     *         no OSN) or {@code dst} is too small
     */
    public static int unwrap(byte[] b, int off, int len, byte[] dst, int payloadType, int ssrc) {
        int hl = RtpPacket.headerLength(b, off, len);
        int pl = RtpPacket.payloadLength(b, off, len);
        if (hl < 0 || pl < OVERHEAD || len - OVERHEAD > dst.length) return -1;
        int osn = RtpPacket.readUint16(b, off + hl);
        System.arraycopy(b, off, dst, 0, hl);
        System.arraycopy(b, off + hl + OVERHEAD, dst, hl, len - hl - OVERHEAD);
        RtpPacket.setPayloadType(dst, 0, payloadType);
        RtpPacket.setSequence(dst, 0, osn);
        RtpPacket.setSsrc(dst, 0, ssrc);
        return len - OVERHEAD;
    }

    /** The original sequence number carried by an RTX packet, or -1 if it has none. */
    public static int originalSequence(byte[] b, int off, int len) {
        int hl = RtpPacket.headerLength(b, off, len);
        int pl = RtpPacket.payloadLength(b, off, len);
        if (hl < 0 || pl < OVERHEAD) return -1;
        return RtpPacket.readUint16(b, off + hl);
    }
}
