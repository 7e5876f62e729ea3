package dev.parley.sfu.bwe;

import dev.parley.sfu.quality.LinkEmulator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The estimator on synthetic links: each test drives a sender whose rate follows the estimate through a
 * {@link LinkEmulator} and checks what the estimate did. Times and bounds are the acceptance
 * criteria; failure messages carry the trace so a regression shows its shape.
 */
class SendSideBandwidthEstimatorTest {

    private static final long AUDIO_BPS = 40_000;

    /** An encoder that uses 90 % of the estimate (minus the audio it also sends), up to {@code maxBps}. */
    private static ClosedLoopSimulation.SendPolicy encoder(long maxBps) {
        return new ClosedLoopSimulation.SendPolicy() {
            @Override
            public long mediaBps(long nowMicros, long estimateBps) {
                return Math.max(0, Math.min(estimateBps, maxBps) * 9 / 10 - AUDIO_BPS);
            }

            @Override
            public long desiredBps() {
                return maxBps;
            }
        };
    }

    private static ClosedLoopSimulation sim(long capacityBps, double loss) {
        LinkEmulator link = new LinkEmulator(capacityBps, 20_000, 400_000, loss, 42);
        return new ClosedLoopSimulation(BweConfig.defaults(), link, encoder(2_500_000), true);
    }

    @Test
    void steadyLinkConvergesNearCapacity() {
        ClosedLoopSimulation sim = sim(300_000, 0);
        sim.run(30_000);
        double mean = sim.meanEstimate(10_000, 30_000);
        assertThat(mean).as(sim.trace(0, 30_000, 1000)).isBetween(0.75 * 300_000, 1.25 * 300_000);
        assertThat(sim.minEstimate(10_000, 30_000)).as("never collapses").isGreaterThan(150_000);
        assertThat(sim.maxEstimate(10_000, 30_000)).as("never runs away").isLessThan(450_000);
    }

    @Test
    void jitterAloneIsNotMistakenForCongestion() {
        LinkEmulator link = new LinkEmulator(2_000_000, 20_000, 400_000, 0, 11);
        link.setJitterMicros(10_000); // up to 10 ms per packet, e.g. Wi-Fi
        ClosedLoopSimulation sim = new ClosedLoopSimulation(BweConfig.defaults(), link, encoder(1_000_000), true);
        sim.run(30_000);
        // the encoder wants 1 Mbps on a 2 Mbps path: the estimate must stay above what it wants
        assertThat(sim.minEstimate(5_000, 30_000)).as(sim.trace(0, 30_000, 1000)).isGreaterThan(1_000_000);
    }

    @Test
    void initialProbingReachesAFastLinkWithinTwoSeconds() {
        ClosedLoopSimulation sim = sim(2_000_000, 0);
        sim.run(2_000);
        assertThat(sim.probesSent).isGreaterThanOrEqualTo(2);
        assertThat(sim.estimator.estimateBps()).as(sim.trace(0, 2_000, 100)).isGreaterThan(1_400_000);
    }

    @Test
    void capacityDropIsDetectedAsOveruseWithinASecondAndTheEstimateFalls() {
        ClosedLoopSimulation sim = sim(2_000_000, 0);
        sim.run(20_000);
        sim.link.setCapacityBps(300_000);
        sim.run(5_000);
        String trace = sim.trace(19_000, 25_000, 100);
        long overuseAt = sim.firstTimeMs(20_000, s -> s.usage() == BandwidthUsage.OVERUSING);
        assertThat(overuseAt).as(trace).isBetween(20_000L, 21_000L);
        long fellAt = sim.firstTimeMs(20_000, s -> s.estimateBps() < 450_000);
        assertThat(fellAt).as(trace).isBetween(20_000L, 21_500L);
        assertThat(sim.meanEstimate(22_000, 25_000)).as(trace).isBetween(150_000.0, 400_000.0);
    }

    /**
     * An SFU cannot follow a falling estimate at once: it keeps forwarding the layer it is on until the lower
     * layer's keyframe (here: what it decided 700 ms earlier). When a 1.5 Mbps stream meets a 300 kbps link
     * with a 500 ms drop-tail queue, most of what was sent in that time is lost, and the losses keep being
     * reported for a queue's worth of time after each cut. Cutting again every 300 ms + a nominal 100 ms RTT
     * answered the same congestion several times and took the estimate to its 30 kbps floor (the browser test:
     * the video paused at 300 kbps and took 20 s to resume). With the RTT measured from the feedback itself
     * (queueing included) the loss cuts wait until the previous cut could show.
     */
    @Test
    void aLaggingSenderOnASuddenlyNarrowLinkIsNotCutToTheFloor() {
        LinkEmulator link = new LinkEmulator(10_000_000, 20_000, 500_000, 0, 42);
        long[] decided = new long[1000];
        ClosedLoopSimulation.SendPolicy sfu = (now, estimate) -> {
            int i = (int) (now / 100_000);
            decided[i % decided.length] = Math.min(estimate, 1_500_000);
            return i >= 7 ? decided[(i - 7) % decided.length] : 300_000;
        };
        ClosedLoopSimulation sim = new ClosedLoopSimulation(BweConfig.defaults(), link, sfu, true);
        sim.run(15_000);
        assertThat(sim.estimator.estimateBps()).as(sim.trace(0, 15_000, 500)).isGreaterThan(1_000_000);
        link.setCapacityBps(300_000);
        sim.run(10_000);
        String trace = sim.trace(14_000, 25_000, 100);
        // above what audio (40 kbps here) and a 180p base layer (≈ 30–40 kbps) need: the video need not pause
        // (before: cut five times in 1.3 s, down to 56 kbps)
        assertThat(sim.minEstimate(15_000, 25_000)).as(trace).isGreaterThan(80_000);
        assertThat(sim.maxEstimate(17_000, 25_000)).as(trace).isLessThan(400_000);
    }

    /**
     * A loss cap left from a lossy spell sits far below the delay-based estimate; an SFU forwarding a low layer (300
     * kbps) while it wants 1.5 Mbps probes for more. Probe results between the cap and the delay-based estimate
     * must lift the cap, not be discarded.
     */
    @Test
    void probesLiftALossCapThatSitsBelowTheDelayBasedEstimate() {
        LinkEmulator link = new LinkEmulator(10_000_000, 20_000, 500_000, 0.3, 42);
        ClosedLoopSimulation.SendPolicy sfu = new ClosedLoopSimulation.SendPolicy() {
            public long mediaBps(long now, long estimate) { return Math.min(estimate, 300_000); }
            public long desiredBps() { return 1_500_000; }
        };
        ClosedLoopSimulation sim = new ClosedLoopSimulation(BweConfig.defaults(), link, sfu, true);
        sim.run(8_000);
        long capped = sim.estimator.estimateBps();
        link.setLossRate(0);
        sim.run(8_000);
        String trace = sim.trace(7_000, 16_000, 500);
        assertThat(capped).as(trace).isLessThan(200_000);
        assertThat(sim.estimator.estimateBps()).as(trace).isGreaterThan(1_000_000);
    }

    @Test
    void recoversWhenCapacityReturnsWithoutOscillatingBeyondABound() {
        ClosedLoopSimulation sim = sim(2_000_000, 0);
        sim.run(10_000);
        sim.link.setCapacityBps(300_000);
        sim.run(15_000);
        sim.link.setCapacityBps(2_000_000);
        sim.run(30_000);
        String trace = sim.trace(24_000, 55_000, 500);
        long recoveredAt = sim.firstTimeMs(25_000, s -> s.estimateBps() >= 1_400_000);
        assertThat(recoveredAt).as(trace).isBetween(25_000L, 40_000L);
        // after recovering it stays in a band around capacity: probing dips are bounded
        assertThat(sim.minEstimate(recoveredAt + 1000, 55_000)).as(trace).isGreaterThan(1_000_000);
        assertThat(sim.maxEstimate(recoveredAt, 55_000)).as(trace).isLessThan(2_700_000);
        assertThat(sim.meanEstimate(recoveredAt, 55_000)).as(trace).isBetween(1_400_000.0, 2_300_000.0);
    }

    @Test
    void heavyRandomLossLowersTheEstimateButLightLossDoesNot() {
        ClosedLoopSimulation lossy = sim(10_000_000, 0.20);
        lossy.run(12_000);
        double maxLoss = 0;
        for (int i = 0; i < 6; i++) {           // the last reporting periods' loss, sampled every 500 ms
            lossy.run(500);
            maxLoss = Math.max(maxLoss, lossy.estimator.stats(lossy.nowMs() * 1000).lossFraction());
        }
        ClosedLoopSimulation light = sim(10_000_000, 0.01);
        light.run(15_000);
        assertThat(lossy.meanEstimate(10_000, 15_000)).as(lossy.trace(0, 15_000, 1000)).isLessThan(300_000);
        // one reporting period is only ~20 packets at this rate: its loss is a noisy sample of the 20 %
        // (a single period can see none), so the largest of the last six is checked
        assertThat(maxLoss).isBetween(0.02, 0.5);
        assertThat(light.meanEstimate(10_000, 15_000)).as(light.trace(0, 15_000, 1000)).isGreaterThan(1_500_000);
    }

    @Test
    void closedLoopTracksCapacityThroughChanges() {
        ClosedLoopSimulation sim = sim(2_000_000, 0);
        long[] capacities = {2_000_000, 300_000, 2_000_000, 50_000};
        long phaseMs = 20_000;
        for (int i = 0; i < capacities.length; i++) {
            sim.link.setCapacityBps(capacities[i]);
            sim.run(phaseMs);
        }
        String trace = sim.trace(0, 80_000, 1000);
        assertThat(sim.meanEstimate(5_000, 20_000)).as(trace).isBetween(1_300_000.0, 2_300_000.0);
        assertThat(sim.meanEstimate(23_000, 40_000)).as(trace).isBetween(200_000.0, 380_000.0);
        assertThat(sim.meanEstimate(50_000, 60_000)).as(trace).isBetween(1_300_000.0, 2_300_000.0);
        assertThat(sim.meanEstimate(63_000, 80_000)).as(trace).isBetween(30_000.0, 65_000.0);
    }

    @Test
    void rembIsUsedUntilTransportCcFeedbackArrives() {
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults().withProbing(false));
        assertThat(bwe.mode()).isEqualTo(EstimatorMode.STARTUP);
        assertThat(bwe.onRemb(800_000, 1_000)).isEqualTo(800_000);
        assertThat(bwe.mode()).isEqualTo(EstimatorMode.REMB);
        assertThat(bwe.onRemb(20_000_000, 2_000)).as("clamped to max").isEqualTo(10_000_000);
        // 30 % loss in receiver reports caps a REMB-mode estimate too
        bwe.onRemb(800_000, 3_000);
        bwe.onReceiverReportLoss(77, 100, 4_000);
        assertThat(bwe.estimateBps()).isLessThan(800_000);

        bwe.onPacketSent(1, 10_000, 1000, -1);
        bwe.onFeedbackStart(60_000);
        bwe.onPacketFeedback(1, true, 30_000);
        bwe.onFeedbackEnd(60_000);
        assertThat(bwe.mode()).isEqualTo(EstimatorMode.TRANSPORT_CC);
        long before = bwe.estimateBps();
        assertThat(bwe.onRemb(5_000_000, 70_000)).as("REMB ignored once transport-cc works").isEqualTo(before);
    }

    @Test
    void feedbackForUnknownOrDuplicatePacketsIsCountedNotFatal() {
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults().withProbing(false));
        bwe.onFeedbackStart(0);
        bwe.onPacketFeedback(500, true, 1_000); // nothing sent yet
        bwe.onFeedbackEnd(0);
        bwe.onPacketSent(65_535, 0, 1200, -1);
        bwe.onPacketSent(0, 1_000, 1200, -1); // wraps
        bwe.onFeedbackStart(50_000);
        bwe.onPacketFeedback(65_535, true, 20_000);
        bwe.onPacketFeedback(0, true, 21_000);
        bwe.onPacketFeedback(0, true, 21_000); // duplicate in an overlapping report
        bwe.onPacketFeedback(30_000, false, 0); // far outside the history
        bwe.onFeedbackEnd(50_000);
        assertThat(bwe.stats(50_000).unknownFeedbackPackets()).isEqualTo(2);
        assertThat(bwe.estimateBps()).as("still a sane estimate").isBetween(300_000L, 320_000L);
    }

    @Test
    void initialProbesAreCappedByTheDesiredBitrate() {
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults());
        bwe.setDesiredBitrate(1_000_000);
        bwe.onPacketSent(0, 0, 1000, -1);
        ProbeClusterRequest first = bwe.pollProbeCluster();
        ProbeClusterRequest second = bwe.pollProbeCluster();
        assertThat(first.targetBps()).isEqualTo(900_000);
        assertThat(second.targetBps()).as("6 × 300k capped at 1.5 × desired").isEqualTo(1_500_000);
        assertThat(second.minBytes()).isEqualTo(1_500_000 * 20 / 8_000);
        assertThat(second.bytesDueAt(10_000)).isEqualTo(second.minBytes() / 2);
        assertThat(bwe.pollProbeCluster()).isNull();
    }

    @Test
    void sendAndFeedbackPathsDoNotAllocate() {
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults().withProbing(false));
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        runTraffic(bwe, 0, 20_000); // warm up (class loading, JIT)
        long before = mx.getCurrentThreadAllocatedBytes();
        runTraffic(bwe, 20_000, 40_000);
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated for 20k packets and 1000 feedbacks").isLessThan(1024);
    }

    private static void runTraffic(SendSideBandwidthEstimator bwe, int fromSeq, int toSeq) {
        for (int seq = fromSeq; seq < toSeq; seq += 20) {
            long t = seq * 1000L;
            for (int i = 0; i < 20; i++) {
                bwe.onPacketSent((seq + i) & 0xFFFF, t + i * 1000L, 1200, -1);
            }
            bwe.onFeedbackStart(t + 40_000);
            for (int i = 0; i < 20; i++) {
                bwe.onPacketFeedback((seq + i) & 0xFFFF, i != 7, t + i * 1000L + 25_000);
            }
            bwe.onFeedbackEnd(t + 40_000);
            bwe.onTick(t + 40_000);
        }
    }
}
