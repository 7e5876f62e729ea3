package dev.parley.sfu.bwe;

import dev.parley.sfu.allocation.TrackState;
import dev.parley.sfu.quality.LinkEmulator;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SFU loop without the SFU: estimator → allocator → forwarded layers (plus probes) → shaped link →
 * transport-cc feedback → estimator. The sender is application-limited (it sends discrete layers, not
 * "the estimate"), which is exactly the case probing exists for.
 */
class AllocatorClosedLoopTest {

    @Test
    void constrainedSubscriberGetsLowLayerClimbsBackWithoutOscillationAndPausesAt50k() {
        SimulatedSubscriber sender = new SimulatedSubscriber();
        LinkEmulator link = new LinkEmulator(300_000, 20_000, 400_000, 0, 7);
        ClosedLoopSimulation sim = new ClosedLoopSimulation(BweConfig.defaults(), link, sender, true);

        sim.run(20_000);
        String trace = sender.trace() + sim.trace(0, 20_000, 1000);
        assertThat(sender.spatialAt(20_000)).as(trace).isZero();
        assertThat(sender.changes(8_000, 20_000)).as("settled on the low layer: " + trace).isLessThanOrEqualTo(2);

        link.setCapacityBps(10_000_000); // limit lifted
        sim.run(25_000);
        trace = sender.trace() + sim.trace(19_000, 45_000, 500);
        long highAt = sender.firstTime(20_000, 2);
        assertThat(highAt).as("back on 720p within 15 s: " + trace).isBetween(20_000L, 35_000L);
        assertThat(sender.changes(highAt, 45_000)).as("no oscillation once up: " + trace).isZero();

        link.setCapacityBps(50_000);
        sim.run(15_000);
        trace = sender.trace() + sim.trace(44_000, 60_000, 500);
        long pausedAt = sender.firstTime(45_000, -1);
        assertThat(pausedAt).as("video paused: " + trace).isBetween(45_000L, 47_000L);
        assertThat(sender.spatialAt(60_000)).as(trace).isEqualTo(-1);
        assertThat(sender.last.track("mic").state()).isEqualTo(TrackState.FORWARDING);
        long audioLostBefore = sim.audioLost;
        long audioSentBefore = sim.audioSent;
        sim.run(10_000);
        assertThat(sim.audioSent - audioSentBefore).isEqualTo(500);
        assertThat(sim.audioLost - audioLostBefore).as("audio continues without loss once video paused: "
                + sender.trace() + sim.trace(59_000, 70_000, 500)).isZero();
        // layer switches and the estimate once a second, kept in the surefire output for docs/bwe.md
        System.out.println(sender.trace() + sim.trace(0, 70_000, 1000));
    }
}
