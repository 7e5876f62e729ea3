package dev.parley.sfu.bwe;

/**
 * A burst the SFU must send on one subscriber transport so the estimator can measure headroom: about
 * {@code minBytes} spread evenly over {@code durationMicros} (i.e. at {@code targetBps}), in at least
 * {@code minPackets} packets. Every packet sent on the transport while the cluster runs (media, RTX and
 * the filler) is recorded with {@code probeClusterId = id} in {@link SendSideBandwidthEstimator#onPacketSent};
 * the SFU tops media up with {@link #kind} packets until {@link #bytesDueAt} is reached. Counting the media
 * too is what makes the measured receive rate the path's rate rather than the filler's share of it.
 */
public record ProbeClusterRequest(int id, long targetBps, long durationMicros, int minPackets, int minBytes,
                                  ProbeKind kind) {

    /** Bytes that should have been sent {@code elapsedMicros} after the cluster started (for pacing). */
    public int bytesDueAt(long elapsedMicros) {
        if (elapsedMicros >= durationMicros) {
            return minBytes;
        }
        return (int) ((long) minBytes * Math.max(0, elapsedMicros) / durationMicros);
    }
}
