package dev.parley.sfu.bwe;

/**
 * Runs the estimator's probe clusters for the SFU, so its send path needs no probe bookkeeping: every
 * packet sent on the transport goes through {@link #onPacketSent} (which tags it with the running cluster),
 * and a timer asks {@link #fillerBytesDue} how many padding/RTX bytes to add now.
 *
 * <pre>
 *   on every send:  pacer.onPacketSent(seq, now, size)
 *   on the timer (every 1–5 ms while {@link #probing()}, else every 25 ms):
 *       int due;
 *       while ((due = pacer.fillerBytesDue(now)) > 0) {
 *           int size = Math.min(due, pacer.fillerPacketSize()); // RTX or padding per pacer.fillerKind()
 *           ... send it with the next transport-wide seq ...
 *           pacer.onPacketSent(seq, now, actualSize);
 *       }
 * </pre>
 * Not thread-safe: the transport's event loop.
 */
public final class ProbePacer {

    private static final int MIN_FILLER_PACKET = 200;
    private static final int MAX_FILLER_PACKET = 1200;

    private final SendSideBandwidthEstimator bwe;
    private ProbeClusterRequest active;
    private long startMicros;
    private int bytesSent;
    private int packetsSent;

    public ProbePacer(SendSideBandwidthEstimator bwe) {
        this.bwe = bwe;
    }

    /** Records a sent packet (media, RTX or filler) with the estimator, tagged with the running cluster. */
    public void onPacketSent(int transportSeq, long nowMicros, int sizeBytes) {
        int cluster = -1;
        if (active != null) {
            cluster = active.id();
            bytesSent += sizeBytes;
            packetsSent++;
            finishIfDone();
        }
        bwe.onPacketSent(transportSeq, nowMicros, sizeBytes, cluster);
    }

    /** Filler bytes to send now to keep the running cluster at its rate; starts the next cluster if idle. */
    public int fillerBytesDue(long nowMicros) {
        if (active == null) {
            active = bwe.pollProbeCluster();
            if (active == null) {
                return 0;
            }
            bwe.onProbeClusterStarted(active);
            startMicros = nowMicros;
            bytesSent = 0;
            packetsSent = 0;
        }
        int due = active.bytesDueAt(nowMicros - startMicros) - bytesSent;
        if (due <= 0 && nowMicros - startMicros >= active.durationMicros()
                && packetsSent < active.minPackets()) {
            due = MIN_FILLER_PACKET; // enough bytes but too few packets to measure a rate
        }
        return Math.max(0, due);
    }

    /** Size to cut filler into: the cluster's bytes over its minimum packet count, within 200..1200. */
    public int fillerPacketSize() {
        if (active == null) {
            return MIN_FILLER_PACKET;
        }
        int size = active.minBytes() / Math.max(1, active.minPackets());
        return Math.max(MIN_FILLER_PACKET, Math.min(MAX_FILLER_PACKET, size));
    }

    public ProbeKind fillerKind() {
        return active == null ? ProbeKind.PADDING : active.kind();
    }

    /** Whether a cluster is running (the SFU should tick every few ms meanwhile). */
    public boolean probing() {
        return active != null;
    }

    private void finishIfDone() {
        if (bytesSent >= active.minBytes() && packetsSent >= active.minPackets()) {
            active = null;
        }
    }
}
