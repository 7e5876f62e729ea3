package dev.parley.media.rtcp;

import dev.parley.media.rtp.RtpPacket;

/**
 * RTCP (RFC 3550 §6, RFC 4585, RFC 5104, REMB draft, transport-cc draft) parsing and writing on byte arrays.
 * A compound packet is walked with {@link #next}; each block is identified by packet type and FMT.
 */
public final class Rtcp {
    public static final int SR = 200, RR = 201, SDES = 202, BYE = 203, APP = 204, RTPFB = 205, PSFB = 206;
    public static final int FMT_NACK = 1, FMT_TWCC = 15;
    public static final int FMT_PLI = 1, FMT_FIR = 4, FMT_AFB = 15;

    private Rtcp() {}

    public static int version(byte[] b, int o) { return (b[o] & 0xFF) >>> 6; }
    public static int count(byte[] b, int o) { return b[o] & 0x1F; }
    public static int type(byte[] b, int o) { return b[o + 1] & 0xFF; }
    /** Length of this block in bytes (from the header's length field, in 32-bit words minus one). */
    public static int blockLength(byte[] b, int o) { return (RtpPacket.readUint16(b, o + 2) + 1) * 4; }
    public static int senderSsrc(byte[] b, int o) { return (int) RtpPacket.readUint32(b, o + 4); }
    /** Media source SSRC of a feedback message (RFC 4585 §6.1). */
    public static int mediaSsrc(byte[] b, int o) { return (int) RtpPacket.readUint32(b, o + 8); }

    /**
     * Validates the compound packet structure: every block has version 2 and fits; returns the number of blocks
     * or -1 if malformed.
     */
    public static int validate(byte[] b, int off, int len) {
        int p = off, end = off + len, n = 0;
        while (p < end) {
            if (end - p < 4 || version(b, p) != 2) return -1;
            int l = blockLength(b, p);
            if (p + l > end) return -1;
            p += l;
            n++;
        }
        return n == 0 ? -1 : n;
    }

    /** Offset of the block after the one at {@code p}, or -1 at the end / when malformed. */
    public static int next(byte[] b, int p, int end) {
        if (end - p < 4) return -1;
        int np = p + blockLength(b, p);
        return np < end && end - np >= 4 ? np : -1;
    }

    // ---- writers (each returns bytes written) ----

    private static void header(byte[] b, int o, int countOrFmt, int pt, int lengthBytes) {
        b[o] = (byte) (0x80 | (countOrFmt & 0x1F));
        b[o + 1] = (byte) pt;
        RtpPacket.writeUint16(b, o + 2, lengthBytes / 4 - 1);
    }

    /** PLI (RFC 4585 §6.3.1). */
    public static int writePli(byte[] b, int o, int senderSsrc, int mediaSsrc) {
        header(b, o, FMT_PLI, PSFB, 12);
        RtpPacket.writeUint32(b, o + 4, senderSsrc & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 8, mediaSsrc & 0xFFFFFFFFL);
        return 12;
    }

    /** FIR (RFC 5104 §4.3.1) with one entry. */
    public static int writeFir(byte[] b, int o, int senderSsrc, int mediaSsrc, int seqNr) {
        header(b, o, FMT_FIR, PSFB, 20);
        RtpPacket.writeUint32(b, o + 4, senderSsrc & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 8, 0);
        RtpPacket.writeUint32(b, o + 12, mediaSsrc & 0xFFFFFFFFL);
        b[o + 16] = (byte) seqNr; b[o + 17] = 0; b[o + 18] = 0; b[o + 19] = 0;
        return 20;
    }

    /** Generic NACK (RFC 4585 §6.2.1) for {@code n} sequence numbers (sorted ascending). */
    public static int writeNack(byte[] b, int o, int senderSsrc, int mediaSsrc, int[] seqs, int n) {
        int p = o + 12;
        int i = 0;
        while (i < n) {
            int pid = seqs[i++];
            int blp = 0;
            while (i < n) {
                int d = RtpPacket.seqDelta(seqs[i], pid);
                if (d < 1 || d > 16) break;
                blp |= 1 << (d - 1);
                i++;
            }
            RtpPacket.writeUint16(b, p, pid & 0xFFFF);
            RtpPacket.writeUint16(b, p + 2, blp);
            p += 4;
        }
        header(b, o, FMT_NACK, RTPFB, p - o);
        RtpPacket.writeUint32(b, o + 4, senderSsrc & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 8, mediaSsrc & 0xFFFFFFFFL);
        return p - o;
    }

    /** Number of FCI entries (PID+BLP pairs) of a NACK block. */
    public static int nackEntries(byte[] b, int o) { return (blockLength(b, o) - 12) / 4; }
    public static int nackPid(byte[] b, int o, int i) { return RtpPacket.readUint16(b, o + 12 + 4 * i); }
    public static int nackBlp(byte[] b, int o, int i) { return RtpPacket.readUint16(b, o + 14 + 4 * i); }

    /** REMB (draft-alvestrand-rmcat-remb) for the given SSRCs. */
    public static int writeRemb(byte[] b, int o, int senderSsrc, long bitrateBps, int[] ssrcs, int n) {
        int len = 20 + 4 * n;
        header(b, o, FMT_AFB, PSFB, len);
        RtpPacket.writeUint32(b, o + 4, senderSsrc & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 8, 0);
        b[o + 12] = 'R'; b[o + 13] = 'E'; b[o + 14] = 'M'; b[o + 15] = 'B';
        int exp = 0;
        long mantissa = bitrateBps;
        while (mantissa > 0x3FFFF) { mantissa >>>= 1; exp++; }
        b[o + 16] = (byte) n;
        b[o + 17] = (byte) ((exp << 2) | (int) (mantissa >>> 16));
        b[o + 18] = (byte) (mantissa >>> 8);
        b[o + 19] = (byte) mantissa;
        for (int i = 0; i < n; i++) RtpPacket.writeUint32(b, o + 20 + 4 * i, ssrcs[i] & 0xFFFFFFFFL);
        return len;
    }

    /** True if the PSFB block at {@code o} is REMB. */
    public static boolean isRemb(byte[] b, int o) {
        return type(b, o) == PSFB && count(b, o) == FMT_AFB && blockLength(b, o) >= 20
                && b[o + 12] == 'R' && b[o + 13] == 'E' && b[o + 14] == 'M' && b[o + 15] == 'B';
    }

    /** Bitrate of a REMB block in bits per second. */
    public static long rembBitrate(byte[] b, int o) {
        int exp = (b[o + 17] & 0xFF) >>> 2;
        long mantissa = ((long) (b[o + 17] & 0x03) << 16) | ((b[o + 18] & 0xFF) << 8) | (b[o + 19] & 0xFF);
        return mantissa << exp;
    }

    /**
     * Sender report (RFC 3550 §6.4.1) with no report blocks.
     */
    public static int writeSenderReport(byte[] b, int o, int ssrc, long ntp, long rtpTs, long packets, long octets) {
        header(b, o, 0, SR, 28);
        RtpPacket.writeUint32(b, o + 4, ssrc & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 8, ntp >>> 32);
        RtpPacket.writeUint32(b, o + 12, ntp & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 16, rtpTs & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 20, packets & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 24, octets & 0xFFFFFFFFL);
        return 28;
    }

    /** Receiver report with one report block (RFC 3550 §6.4.2). */
    public static int writeReceiverReport(byte[] b, int o, int senderSsrc, int sourceSsrc, int fractionLost,
                                          int cumulativeLost, long extHighestSeq, long jitter, long lsr, long dlsr) {
        header(b, o, 1, RR, 32);
        RtpPacket.writeUint32(b, o + 4, senderSsrc & 0xFFFFFFFFL);
        RtpPacket.writeUint32(b, o + 8, sourceSsrc & 0xFFFFFFFFL);
        b[o + 12] = (byte) fractionLost;
        int cl = Math.max(-0x800000, Math.min(0x7FFFFF, cumulativeLost));
        b[o + 13] = (byte) (cl >>> 16); b[o + 14] = (byte) (cl >>> 8); b[o + 15] = (byte) cl;
        RtpPacket.writeUint32(b, o + 16, extHighestSeq);
        RtpPacket.writeUint32(b, o + 20, jitter);
        RtpPacket.writeUint32(b, o + 24, lsr);
        RtpPacket.writeUint32(b, o + 28, dlsr);
        return 32;
    }

    /** SDES with one CNAME chunk. */
    public static int writeSdesCname(byte[] b, int o, int ssrc, byte[] cname) {
        int itemLen = 2 + cname.length;
        int chunk = 4 + itemLen + 1;                 // ssrc + item + END
        chunk = (chunk + 3) & ~3;
        header(b, o, 1, SDES, 4 + chunk);
        RtpPacket.writeUint32(b, o + 4, ssrc & 0xFFFFFFFFL);
        b[o + 8] = 1;
        b[o + 9] = (byte) cname.length;
        System.arraycopy(cname, 0, b, o + 10, cname.length);
        for (int i = o + 10 + cname.length; i < o + 4 + chunk; i++) b[i] = 0;
        return 4 + chunk;
    }

    /** BYE for one SSRC. */
    public static int writeBye(byte[] b, int o, int ssrc) {
        header(b, o, 1, BYE, 8);
        RtpPacket.writeUint32(b, o + 4, ssrc & 0xFFFFFFFFL);
        return 8;
    }

    /** SR fields. */
    public static long srNtp(byte[] b, int o) { return (RtpPacket.readUint32(b, o + 8) << 32) | RtpPacket.readUint32(b, o + 12); }
    public static long srRtpTimestamp(byte[] b, int o) { return RtpPacket.readUint32(b, o + 16); }

    /** transport-cc feedback header fields (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1). */
    public static int twccBaseSequence(byte[] b, int o) { return RtpPacket.readUint16(b, o + 12); }
    public static int twccStatusCount(byte[] b, int o) { return RtpPacket.readUint16(b, o + 14); }
    public static int twccFeedbackCount(byte[] b, int o) { return b[o + 19] & 0xFF; }
}
