package dev.parley.sfu.bwe;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Grouping, trendline and detector on hand-made delay traces, without any rate control around them. */
class DelaySignalTest {

    /** Sends one group every 10 ms; each group's one-way delay grows by {@code growthMicros}. */
    private static BandwidthUsage feed(long growthMicros, int groups) {
        PacketGroupAccumulator acc = new PacketGroupAccumulator();
        TrendlineEstimator trend = new TrendlineEstimator();
        OveruseDetector detector = new OveruseDetector();
        BandwidthUsage last = BandwidthUsage.NORMAL;
        long delay = 50_000;
        for (int g = 0; g < groups; g++) {
            long send = g * 10_000L;
            delay = Math.max(0, delay + growthMicros);
            for (int p = 0; p < 3; p++) { // three packets 1 ms apart form one 5 ms group
                if (acc.add(send + p * 1000, send + p * 1000 + delay, 1200)) {
                    double t = trend.update(acc.sendDeltaMicros, acc.arrivalDeltaMicros, acc.groupArrivalMicros);
                    last = detector.detect(t, acc.sendDeltaMicros, acc.groupArrivalMicros);
                }
            }
        }
        return last;
    }

    @Test
    void constantDelayIsNormal() {
        assertThat(feed(0, 200)).isEqualTo(BandwidthUsage.NORMAL);
    }

    @Test
    void growingQueueIsOveruse() {
        assertThat(feed(1_000, 60)).isEqualTo(BandwidthUsage.OVERUSING);
    }

    @Test
    void drainingQueueIsUnderuse() {
        assertThat(feed(-1_000, 45)).isEqualTo(BandwidthUsage.UNDERUSING);
    }

    @Test
    void packetsWithin5msFormOneGroup() {
        PacketGroupAccumulator acc = new PacketGroupAccumulator();
        assertThat(acc.add(0, 100, 100)).isFalse();
        assertThat(acc.add(4_000, 4_100, 100)).isFalse();
        assertThat(acc.add(10_000, 10_100, 100)).as("second group started, no pair yet").isFalse();
        assertThat(acc.add(20_000, 22_100, 100)).isTrue();
        assertThat(acc.sendDeltaMicros).isEqualTo(6_000);    // last send of group 2 minus group 1
        assertThat(acc.arrivalDeltaMicros).isEqualTo(6_000);
        assertThat(acc.sizeDeltaBytes).isEqualTo(-100);
    }

    @Test
    void lossControllerHoldsBetweenTwoAndTenPercent() {
        LossBasedController loss = new LossBasedController(30_000, 10_000_000);
        report(loss, 5, 100);
        assertThat(loss.update(1_000_000, 100, 0)).as("hold caps at the current estimate").isEqualTo(1_000_000);
        report(loss, 20, 100);
        assertThat(loss.update(1_000_000, 100, 1_000_000)).isEqualTo(900_000); // 1 − 0.5 × 0.2
        report(loss, 20, 100);
        assertThat(loss.update(900_000, 100, 1_100_000)).as("no second cut within 300 ms + RTT")
                .isEqualTo(900_000);
        report(loss, 0, 100);
        assertThat(loss.update(900_000, 100, 2_000_000)).isGreaterThan(900_000);
    }

    private static void report(LossBasedController loss, int lost, int total) {
        for (int i = 0; i < total; i++) {
            loss.onPacketResult(i >= lost);
        }
    }
}
