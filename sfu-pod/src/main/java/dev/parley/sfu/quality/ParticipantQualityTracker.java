package dev.parley.sfu.quality;

/**
 * Aggregates one participant's {@link QualitySample}s and decides when to report. Reports go out every
 * {@code intervalMs} (default 5 s), and early, at most once a second, when the quality got worse, so the
 * indicator reacts to trouble quickly but does not flicker upwards: an improvement waits for the next
 * regular report, which also needs the whole interval to have been better.
 *
 * <p>Within an interval the worst level and the worst figures are kept. Losing contact (no media or
 * feedback for {@value #LOST_AFTER_SAMPLES} samples in a row) is LOST.
 */
public final class ParticipantQualityTracker {

    public static final long DEFAULT_INTERVAL_MS = 5_000;
    static final long MIN_EARLY_GAP_MS = 1_000;
    static final int LOST_AFTER_SAMPLES = 3;

    private final String participantId;
    private final long intervalMs;
    private long lastReportMs = Long.MIN_VALUE;
    private ConnectionQuality reported;
    private long sequence;
    private int silentSamples;
    // worst over the current interval
    private ConnectionQuality worst;
    private double maxLoss;
    private int maxRtt = -1;
    private double maxJitter = -1;
    private long minEstimate = -1;
    private int minLayer = Integer.MAX_VALUE;

    public ParticipantQualityTracker(String participantId, long intervalMs) {
        this.participantId = participantId;
        this.intervalMs = intervalMs;
    }

    public ParticipantQualityTracker(String participantId) {
        this(participantId, DEFAULT_INTERVAL_MS);
    }

    public void onSample(QualitySample s) {
        silentSamples = s.mediaFlowing() ? 0 : silentSamples + 1;
        ConnectionQuality q = s.mediaFlowing() ? QualityScorer.score(s)
                : silentSamples >= LOST_AFTER_SAMPLES ? ConnectionQuality.LOST : ConnectionQuality.POOR;
        worst = worst == null ? q : QualityScorer.worse(worst, q);
        maxLoss = Math.max(maxLoss, s.lossFraction());
        maxRtt = Math.max(maxRtt, s.rttMs());
        maxJitter = Math.max(maxJitter, s.jitterMs());
        minLayer = Math.min(minLayer, s.topSpatialLayer());
        if (s.estimateBps() >= 0) {
            minEstimate = minEstimate < 0 ? s.estimateBps() : Math.min(minEstimate, s.estimateBps());
        }
    }

    /** A report to send now, or null. Call it whenever convenient (e.g. each second). */
    public QualityReport maybeReport(long nowMs) {
        if (worst == null) {
            return null; // nothing measured since the last report
        }
        boolean due = lastReportMs == Long.MIN_VALUE || nowMs - lastReportMs >= intervalMs;
        boolean worse = reported != null && worst.ordinal() > reported.ordinal()
                && nowMs - lastReportMs >= MIN_EARLY_GAP_MS;
        if (!due && !worse) {
            return null;
        }
        QualityReport r = new QualityReport(participantId, worst, maxLoss, maxRtt, maxJitter, minEstimate,
                minLayer == Integer.MAX_VALUE ? -1 : minLayer, ++sequence);
        reported = worst;
        lastReportMs = nowMs;
        worst = null;
        maxLoss = 0;
        maxRtt = -1;
        maxJitter = -1;
        minEstimate = -1;
        minLayer = Integer.MAX_VALUE;
        return r;
    }
}
