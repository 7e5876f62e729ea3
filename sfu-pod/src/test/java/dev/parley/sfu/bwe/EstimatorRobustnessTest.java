package dev.parley.sfu.bwe;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Garbage in, no crash out: feedback built from a receiver that reorders, duplicates, invents sequence
 * numbers, jumps its clock backwards and forwards, and reports everything lost. The estimate must stay a
 * number within the configured bounds, and the estimator must keep working afterwards.
 */
class EstimatorRobustnessTest {

    @org.junit.jupiter.api.Test
    void rembModeRejectsBrokenReports() {
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults());
        bwe.onRemb(1_000_000, 0);
        assertThat(bwe.onRemb(0, 1)).isEqualTo(1_000_000);
        assertThat(bwe.onRemb(-5, 2)).isEqualTo(1_000_000);
        bwe.onReceiverReportLoss(-1, 100, 3);
        bwe.onReceiverReportLoss(300, 100, 4);
        bwe.onReceiverReportLoss(128, -100, 5);
        assertThat(bwe.estimateBps()).isEqualTo(1_000_000);
        assertThat(bwe.stats(6).lossFraction()).isZero();
    }

    @RepeatedTest(20)
    void hostileFeedbackKeepsTheEstimateWithinBounds(RepetitionInfo info) {
        SplittableRandom rnd = new SplittableRandom(info.getCurrentRepetition());
        BweConfig config = BweConfig.defaults();
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(config);
        long now = 0;
        int seq = rnd.nextInt(65_536);
        for (int round = 0; round < 400; round++) {
            now += rnd.nextInt(1, 100_000);
            int n = rnd.nextInt(0, 40);
            for (int i = 0; i < n; i++) {
                bwe.onPacketSent(seq++ & 0xFFFF, now + i * 100L, rnd.nextInt(1, 1500), rnd.nextInt(-1, 3));
            }
            ProbeClusterRequest probe = bwe.pollProbeCluster();
            if (probe != null) {
                bwe.onProbeClusterStarted(probe);
            }
            bwe.onFeedbackStart(now);
            int entries = rnd.nextInt(0, 60);
            for (int i = 0; i < entries; i++) {
                int s = rnd.nextInt(4) == 0 ? rnd.nextInt(65_536) : (seq - rnd.nextInt(0, 80)) & 0xFFFF;
                long arrival = switch (rnd.nextInt(5)) {
                    case 0 -> -rnd.nextLong(1, 1L << 40);        // clock far in the past
                    case 1 -> rnd.nextLong(0, Long.MAX_VALUE / 4); // clock far in the future
                    default -> now + rnd.nextInt(-50_000, 200_000);
                };
                bwe.onPacketFeedback(s, rnd.nextInt(3) != 0, arrival);
            }
            long estimate = bwe.onFeedbackEnd(now);
            assertThat(estimate).isBetween(config.minBitrateBps(), config.maxBitrateBps());
            if (rnd.nextInt(10) == 0) {
                bwe.onRemb(rnd.nextLong(-1_000, 100_000_000), now);
                bwe.onReceiverReportLoss(rnd.nextInt(-10, 300), rnd.nextInt(-5, 500), now);
                bwe.onRttMs(rnd.nextInt(-100, 5_000));
            }
            bwe.onTick(now);
            BweStats stats = bwe.stats(now);
            assertThat(stats.estimateBps()).isBetween(config.minBitrateBps(), config.maxBitrateBps());
            assertThat(stats.lossFraction()).isBetween(0.0, 1.0);
        }
    }
}
