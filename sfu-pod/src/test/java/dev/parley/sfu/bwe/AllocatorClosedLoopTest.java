package dev.parley.sfu.bwe;

import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.allocation.SubscribedTrack;
import dev.parley.sfu.allocation.SubscriberAllocator;
import dev.parley.sfu.allocation.TrackAllocation;
import dev.parley.sfu.allocation.TrackKind;
import dev.parley.sfu.allocation.TrackState;
import dev.parley.sfu.allocation.VideoLayer;
import dev.parley.sfu.quality.LinkEmulator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SFU loop without the SFU: estimator → allocator → forwarded layers (plus probes) → shaped link →
 * transport-cc feedback → estimator. The sender is application-limited (it sends discrete layers, not
 * "the estimate"), which is exactly the case probing exists for.
 */
class AllocatorClosedLoopTest {

    private static final long AUDIO_BPS = 40_000; // what the simulation's audio packets add up to
    private static final long[][] BPS = {
            {60_000, 100_000, 150_000}, {200_000, 320_000, 500_000}, {700_000, 1_100_000, 1_700_000}};

    /** Forwards what the allocator picks; records the camera's layer every allocation. */
    private static final class SfuSender implements ClosedLoopSimulation.SendPolicy {
        final SubscriberAllocator allocator = new SubscriberAllocator(3_000);
        final List<SubscribedTrack> tracks;
        final List<long[]> history = new ArrayList<>(); // {timeMs, spatial (-1 paused)}
        AllocationResult last;
        long lastRunMs = -1_000;

        SfuSender() {
            List<VideoLayer> layers = new ArrayList<>();
            int[][] size = {{320, 180}, {640, 360}, {1280, 720}};
            double[] fps = {7.5, 15, 30};
            for (int s = 0; s < 3; s++) {
                for (int t = 0; t < 3; t++) {
                    layers.add(new VideoLayer(s, t, BPS[s][t], size[s][0], size[s][1], fps[t]));
                }
            }
            tracks = List.of(SubscribedTrack.audio("mic", AUDIO_BPS),
                    SubscribedTrack.video("cam", TrackKind.CAMERA, 1280, 720, layers));
        }

        @Override
        public long mediaBps(long nowMicros, long estimateBps) {
            long nowMs = nowMicros / 1000;
            if (nowMs - lastRunMs >= 50) { // the SFU re-allocates on feedback, ~20 times a second
                last = allocator.allocate(nowMs, estimateBps, tracks);
                lastRunMs = nowMs;
                TrackAllocation cam = last.track("cam");
                history.add(new long[] {nowMs, cam.forwarding() ? cam.spatial() : -1});
            }
            return last.allocatedBps() - AUDIO_BPS; // audio is sent by the simulation itself
        }

        @Override
        public long desiredBps() {
            return last == null ? 0 : last.desiredBps();
        }

        long spatialAt(long ms) {
            long s = -2;
            for (long[] h : history) {
                if (h[0] <= ms) {
                    s = h[1];
                }
            }
            return s;
        }

        long firstTime(long fromMs, long spatial) {
            for (long[] h : history) {
                if (h[0] >= fromMs && h[1] == spatial) {
                    return h[0];
                }
            }
            return -1;
        }

        int changes(long fromMs, long toMs) {
            int n = 0;
            long prev = Long.MIN_VALUE;
            for (long[] h : history) {
                if (h[0] >= fromMs && h[0] < toMs) {
                    if (prev != Long.MIN_VALUE && h[1] != prev) {
                        n++;
                    }
                    prev = h[1];
                }
            }
            return n;
        }

        String trace() {
            StringBuilder sb = new StringBuilder();
            long prev = Long.MIN_VALUE;
            for (long[] h : history) {
                if (h[1] != prev) {
                    sb.append("t=").append(h[0]).append("ms layer=").append(h[1]).append('\n');
                    prev = h[1];
                }
            }
            return sb.toString();
        }
    }

    @Test
    void constrainedSubscriberGetsLowLayerClimbsBackWithoutOscillationAndPausesAt50k() {
        SfuSender sender = new SfuSender();
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
