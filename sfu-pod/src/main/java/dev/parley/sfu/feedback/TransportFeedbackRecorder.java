package dev.parley.sfu.feedback;

import dev.parley.sfu.bwe.TransportFeedbackWriter;

import java.util.Arrays;

/**
 * Receive side of transport-wide congestion control for one publish transport: remembers when each
 * transport-wide sequence number arrived and turns everything since the last report into transport-cc
 * feedback (RTCP RTPFB 15) for the publisher, whose own send-side estimator then adapts its uplink.
 *
 * <p>Arrival times live in a fixed ring indexed by sequence number (no per-packet allocation). Packets
 * arriving after their sequence number was already reported are not reported again; a jump of more than the
 * ring's size starts a fresh range (the sender restarted or the path was lost for a long time).
 */
public final class TransportFeedbackRecorder {
    static final int RING = 4096;
    /** At most this many sequence numbers per message (keeps one message well under the MTU). */
    static final int MAX_PER_MESSAGE = 256;
    private final long[] arrivals = new long[RING];
    private final long[] scratch = new long[MAX_PER_MESSAGE];
    private final long originMicros;
    private boolean started;
    /** Extended sequence numbers: next not yet reported, highest received. */
    private long base, highest;
    private int feedbackCount;

    public TransportFeedbackRecorder(long nowMicros) {
        this.originMicros = nowMicros;
        Arrays.fill(arrivals, -1);
    }

    /** A packet carrying transport-wide sequence number {@code seq} (16 bits) arrived at {@code nowMicros}. */
    public void onPacket(int seq, long nowMicros) {
        long ext;
        if (!started) {
            started = true;
            ext = seq;
            base = ext;
            highest = ext;
        } else {
            ext = highest + (short) (seq - (int) (highest & 0xFFFF));
            if (ext < base) return;                                    // already reported (late or duplicate)
            if (ext - base >= RING) {                                  // too far ahead: start over from here
                for (long s = base; s <= highest; s++) arrivals[(int) (s & (RING - 1))] = -1;
                base = ext;
            }
            if (ext > highest) highest = ext;
        }
        arrivals[(int) (ext & (RING - 1))] = Math.max(0, nowMicros - originMicros);
    }

    /** True if packets arrived that have not been reported yet. */
    public boolean pending() { return started && highest >= base; }

    /**
     * Writes one feedback message for the oldest unreported range (up to {@value #MAX_PER_MESSAGE} sequence
     * numbers) into {@code b} at {@code off}; returns its length, or 0 when there is nothing to report.
     */
    public int write(byte[] b, int off, int senderSsrc, int mediaSsrc) {
        while (pending()) {
            int count = (int) Math.min(MAX_PER_MESSAGE, highest - base + 1);
            boolean any = false;
            for (int i = 0; i < count; i++) {
                int at = (int) ((base + i) & (RING - 1));
                scratch[i] = arrivals[at];
                arrivals[at] = -1;
                any |= scratch[i] >= 0;
            }
            long from = base;
            base += count;
            if (!any) continue;                                         // all lost: nothing the format can carry
            int n = TransportFeedbackWriter.write(b, off, senderSsrc, mediaSsrc, (int) (from & 0xFFFF), scratch, count,
                    feedbackCount & 0xFF);
            if (n > 0) {
                feedbackCount++;
                return n;
            }
            // a delta that doesn't fit 16 bits (≥ 8 s gap inside one range): drop the range, report the next
        }
        return 0;
    }
}
