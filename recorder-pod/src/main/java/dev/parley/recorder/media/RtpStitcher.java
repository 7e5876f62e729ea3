package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;

/**
 * Merges the legs of one track (the same publisher stream received through the old and the new SFU during
 * a drain) into one continuous RTP stream: no gap, no duplicate.
 *
 * <p>Each SFU may rewrite SSRC, sequence numbers and timestamps, but forwards the payload unchanged. A new
 * leg is aligned to the output by finding one packet it shares with the stream already forwarded (payload
 * fingerprint): that fixes its sequence and timestamp offsets. From then on both legs are mapped into the
 * output numbering and a packet is forwarded once, by whichever leg delivers it first. If the old leg
 * closes before any shared packet was seen, the new leg is appended "blind" (next sequence number,
 * timestamp advanced by elapsed time) and {@link #blindSwitches()} counts it: that is a possible gap.
 *
 * <p>Single-threaded (the track's consumer thread calls it), no allocation per packet. Packets are rewritten
 * in place.
 */
public final class RtpStitcher {
    public static final int MAX_LEGS = 4;
    private static final int HISTORY = 1024;
    private static final int PENDING = 256;
    private static final int WINDOW = 2048;

    private final long outSsrc;
    private final int clockRate;

    private final boolean[] open = new boolean[MAX_LEGS];
    private final boolean[] aligned = new boolean[MAX_LEGS];
    private final int[] seqDelta = new int[MAX_LEGS];
    private final long[] tsDelta = new long[MAX_LEGS];
    private int legCount;

    // fingerprints of forwarded packets with their output seq/ts
    private final long[] histFp = new long[HISTORY];
    private final int[] histSeq = new int[HISTORY];
    private final long[] histTs = new long[HISTORY];
    private int histPos;
    private int histCount;

    // fingerprints of packets seen on legs not yet aligned
    private final long[][] pendFp = new long[MAX_LEGS][PENDING];
    private final int[][] pendSeq = new int[MAX_LEGS][PENDING];
    private final long[][] pendTs = new long[MAX_LEGS][PENDING];
    private final int[] pendPos = new int[MAX_LEGS];
    private final int[] pendCount = new int[MAX_LEGS];

    // output-side duplicate detection over extended sequence numbers
    private final long[] seen = new long[WINDOW];
    private long highestOut = -1;
    private long lastOutTs;
    private long lastOutNanos;

    private long forwarded;
    private long duplicates;
    private long tooLate;
    private long heldBack;
    private long blindSwitches;

    public RtpStitcher(long outSsrc, int clockRate) {
        this.outSsrc = outSsrc & 0xFFFFFFFFL;
        this.clockRate = clockRate;
    }

    /** Adds a leg; the first one defines the output numbering. Returns its index. */
    public int addLeg() {
        if (legCount == MAX_LEGS) {
            throw new IllegalStateException("at most " + MAX_LEGS + " legs per track");
        }
        int leg = legCount++;
        open[leg] = true;
        if (leg == 0) {
            aligned[leg] = true; // identity mapping
        }
        return leg;
    }

    /** The leg's SFU is gone (or was left after the make-before-break switch). */
    public void closeLeg(int leg) {
        open[leg] = false;
    }

    /**
     * Offers a packet of {@code leg}. Returns true if it must be forwarded (the header was rewritten in place
     * into the output numbering), false if it was a duplicate, too late or held back until its leg aligns.
     */
    public boolean accept(int leg, byte[] b, int off, int len, long nowNanos) {
        if (leg < 0 || leg >= legCount || !open[leg] || !RtpMedia.wellFormed(b, off, len)) {
            return false;
        }
        int inSeq = RtpPacket.sequence(b, off);
        long inTs = RtpPacket.timestamp(b, off);
        long fp = fingerprint(b, off, len);
        if (!aligned[leg]) {
            if (!alignFromHistory(leg, fp, inSeq, inTs)) {
                if (anyOtherAlignedOpen(leg)) {
                    remember(leg, fp, inSeq, inTs);
                    heldBack++; // the aligned leg still carries the stream; this packet comes through it
                    return false;
                }
                alignBlind(leg, inSeq, inTs, nowNanos);
            }
        }
        int outSeq = (inSeq + seqDelta[leg]) & 0xFFFF;
        long outTs = (inTs + tsDelta[leg]) & 0xFFFFFFFFL;
        long ext = extend(outSeq);
        if (highestOut >= 0 && ext <= highestOut - WINDOW / 2) {
            tooLate++;
            return false;
        }
        int slot = (int) (ext & (WINDOW - 1));
        if (seen[slot] == ext + 1) {
            duplicates++;
            return false;
        }
        seen[slot] = ext + 1;
        if (ext > highestOut) {
            highestOut = ext;
            lastOutTs = outTs;
            lastOutNanos = nowNanos;
        }
        RtpPacket.setSequence(b, off, outSeq);
        RtpPacket.setTimestamp(b, off, outTs);
        RtpPacket.setSsrc(b, off, (int) outSsrc);
        record(fp, outSeq, outTs);
        alignPendingLegs(fp, outSeq, outTs);
        forwarded++;
        return true;
    }

    private long extend(int seq16) {
        if (highestOut < 0) {
            return seq16 + 65536L; // start one cycle up so early reordering stays non-negative
        }
        int delta = (short) (seq16 - (int) (highestOut & 0xFFFF));
        return highestOut + delta;
    }

    private boolean anyOtherAlignedOpen(int leg) {
        for (int i = 0; i < legCount; i++) {
            if (i != leg && open[i] && aligned[i]) {
                return true;
            }
        }
        return false;
    }

    private boolean alignFromHistory(int leg, long fp, int inSeq, long inTs) {
        for (int i = 0; i < histCount; i++) {
            if (histFp[i] == fp) {
                align(leg, histSeq[i], histTs[i], inSeq, inTs);
                return true;
            }
        }
        return false;
    }

    private void alignPendingLegs(long fp, int outSeq, long outTs) {
        for (int leg = 0; leg < legCount; leg++) {
            if (!open[leg] || aligned[leg]) {
                continue;
            }
            for (int i = 0; i < pendCount[leg]; i++) {
                if (pendFp[leg][i] == fp) {
                    align(leg, outSeq, outTs, pendSeq[leg][i], pendTs[leg][i]);
                    break;
                }
            }
        }
    }

    private void align(int leg, int outSeq, long outTs, int inSeq, long inTs) {
        seqDelta[leg] = (outSeq - inSeq) & 0xFFFF;
        tsDelta[leg] = (outTs - inTs) & 0xFFFFFFFFL;
        aligned[leg] = true;
        pendCount[leg] = 0;
    }

    private void alignBlind(int leg, int inSeq, long inTs, long nowNanos) {
        if (highestOut < 0) {
            align(leg, inSeq, inTs, inSeq, inTs);
            return;
        }
        long elapsedTicks = Math.max(1, (nowNanos - lastOutNanos) * clockRate / 1_000_000_000L);
        align(leg, (int) ((highestOut + 1) & 0xFFFF), (lastOutTs + elapsedTicks) & 0xFFFFFFFFL, inSeq, inTs);
        blindSwitches++;
    }

    private void remember(int leg, long fp, int inSeq, long inTs) {
        int p = pendPos[leg];
        pendFp[leg][p] = fp;
        pendSeq[leg][p] = inSeq;
        pendTs[leg][p] = inTs;
        pendPos[leg] = (p + 1) % PENDING;
        pendCount[leg] = Math.min(pendCount[leg] + 1, PENDING);
    }

    private void record(long fp, int outSeq, long outTs) {
        histFp[histPos] = fp;
        histSeq[histPos] = outSeq;
        histTs[histPos] = outTs;
        histPos = (histPos + 1) % HISTORY;
        histCount = Math.min(histCount + 1, HISTORY);
    }

    /** FNV-1a over payload type, marker and payload: what an SFU forwards unchanged. */
    static long fingerprint(byte[] b, int off, int len) {
        long h = 0xcbf29ce484222325L;
        h = (h ^ RtpPacket.payloadType(b, off)) * 0x100000001b3L;
        h = (h ^ (RtpPacket.marker(b, off) ? 1 : 0)) * 0x100000001b3L;
        int p = off + RtpPacket.headerLength(b, off, len);
        int end = p + RtpPacket.payloadLength(b, off, len);
        for (int i = p; i < end; i++) {
            h = (h ^ (b[i] & 0xFF)) * 0x100000001b3L;
        }
        return h;
    }

    public long forwarded() {
        return forwarded;
    }

    public long duplicates() {
        return duplicates;
    }

    public long tooLate() {
        return tooLate;
    }

    public long heldBack() {
        return heldBack;
    }

    public long blindSwitches() {
        return blindSwitches;
    }

    public boolean isAligned(int leg) {
        return aligned[leg];
    }
}
