package dev.parley.sfu.quality;

/**
 * Maps network figures to a quality level with a simplified ITU-T G.107 E-model: effective latency (half
 * the RTT plus twice the jitter plus codec delay) and loss lower an R factor, which maps to a MOS between 1
 * and 4.5. MOS is what people perceive for a call, which makes thresholds meaningful (a clean LAN call is
 * about 4.4, 4.0 is "toll quality") rather than arbitrary loss/RTT cut-offs. Bandwidth limits on video cap the level: a
 * participant whose video is paused is not "excellent" whatever the loss.
 */
public final class QualityScorer {

    static final double LOSS_PENALTY_PER_PERCENT = 4;
    static final double EXCELLENT_MOS = 4.2;
    static final double GOOD_MOS = 3.6;

    private QualityScorer() {
    }

    public static double mos(double lossFraction, int rttMs, double jitterMs) {
        double rtt = Math.max(0, rttMs);
        double jitter = Math.max(0, jitterMs);
        double latency = rtt / 2 + 2 * jitter + 10;
        double r = 93.2 - (latency < 160 ? latency / 40 : (latency - 120) / 10);
        // 4 R points per % loss, more than the audio-only E-model's 2.5: video freezes on loss that PLC hides
        r -= Math.max(0, Math.min(1, lossFraction)) * 100 * LOSS_PENALTY_PER_PERCENT;
        r = Math.max(0, Math.min(100, r));
        return 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r);
    }

    public static ConnectionQuality score(QualitySample s) {
        if (!s.mediaFlowing()) {
            return ConnectionQuality.LOST;
        }
        double mos = mos(s.lossFraction(), s.rttMs(), s.jitterMs());
        ConnectionQuality q = mos >= EXCELLENT_MOS ? ConnectionQuality.EXCELLENT
                : mos >= GOOD_MOS ? ConnectionQuality.GOOD : ConnectionQuality.POOR;
        if (s.videoPaused()) {
            q = worse(q, ConnectionQuality.POOR);
        } else if (s.videoDeficient()) {
            q = worse(q, ConnectionQuality.GOOD);
        }
        return q;
    }

    static ConnectionQuality worse(ConnectionQuality a, ConnectionQuality b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }
}
