package dev.parley.sfu.quality;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class QualityTest {

    private static QualitySample net(double loss, int rtt, double jitter) {
        return new QualitySample(loss, rtt, jitter, 2_000_000, false, false, true, 2);
    }

    @Test
    void scoresFollowTheEModel() {
        assertThat(QualityScorer.score(net(0, 40, 5))).isEqualTo(ConnectionQuality.EXCELLENT);
        assertThat(QualityScorer.score(net(0.02, 150, 20))).isEqualTo(ConnectionQuality.GOOD);
        assertThat(QualityScorer.score(net(0.10, 300, 40))).isEqualTo(ConnectionQuality.POOR);
        assertThat(QualityScorer.mos(0, 0, 0)).isGreaterThan(QualityScorer.mos(0.05, 0, 0));
        assertThat(QualityScorer.mos(1, 5000, 1000)).isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void bandwidthLimitsCapTheLevel() {
        assertThat(QualityScorer.score(new QualitySample(0, 40, 5, 300_000, true, false, true, 0)))
                .isEqualTo(ConnectionQuality.GOOD);
        assertThat(QualityScorer.score(new QualitySample(0, 40, 5, 50_000, true, true, true, 0)))
                .isEqualTo(ConnectionQuality.POOR);
        assertThat(QualityScorer.score(new QualitySample(0, 40, 5, 50_000, false, false, false, 0)))
                .isEqualTo(ConnectionQuality.LOST);
    }

    @Test
    void reportsAtLowRateEarlyWhenWorseAndWorstOfTheInterval() {
        ParticipantQualityTracker t = new ParticipantQualityTracker("p1", 5_000);
        assertThat(t.maybeReport(0)).as("nothing measured yet").isNull();
        t.onSample(net(0, 40, 5));
        QualityReport first = t.maybeReport(0);
        assertThat(first.quality()).isEqualTo(ConnectionQuality.EXCELLENT);
        for (long ms = 1_000; ms < 5_000; ms += 1_000) {
            t.onSample(net(0, 40, 5));
            assertThat(t.maybeReport(ms)).as("not due, not worse").isNull();
        }
        // trouble: reported early (>= 1 s after the last report), with the worst figures
        t.onSample(net(0.15, 300, 40));
        QualityReport bad = t.maybeReport(5_000);
        assertThat(bad.quality()).isEqualTo(ConnectionQuality.POOR);
        assertThat(bad.lossFraction()).isEqualTo(0.15);
        assertThat(bad.topSpatialLayer()).isEqualTo(2);
        assertThat(bad.sequence()).isEqualTo(2);
        // recovery waits for the regular interval
        t.onSample(net(0, 40, 5));
        assertThat(t.maybeReport(6_000)).isNull();
        t.onSample(net(0, 40, 5));
        assertThat(t.maybeReport(10_000).quality()).isEqualTo(ConnectionQuality.EXCELLENT);
    }

    @Test
    void silenceBecomesLost() {
        ParticipantQualityTracker t = new ParticipantQualityTracker("p1", 5_000);
        t.onSample(net(0, 40, 5));
        t.maybeReport(0);
        QualitySample silent = new QualitySample(0, -1, -1, -1, false, false, false, -1);
        t.onSample(silent);
        t.onSample(silent);
        t.onSample(silent);
        assertThat(t.maybeReport(3_000).quality()).isEqualTo(ConnectionQuality.LOST);
    }
}
