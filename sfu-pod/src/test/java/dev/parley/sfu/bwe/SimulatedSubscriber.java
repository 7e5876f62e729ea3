package dev.parley.sfu.bwe;

import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.allocation.SubscribedTrack;
import dev.parley.sfu.allocation.SubscriberAllocator;
import dev.parley.sfu.allocation.TrackAllocation;
import dev.parley.sfu.allocation.TrackKind;
import dev.parley.sfu.allocation.VideoLayer;

import java.util.ArrayList;
import java.util.List;

/**
 * The SFU side of one subscriber in a simulation: forwards what its allocator picks for one publisher's
 * audio + three-layer camera, and records the camera's layer after every allocation.
 */
final class SimulatedSubscriber implements ClosedLoopSimulation.SendPolicy {
    static final long AUDIO_BPS = 40_000; // what the simulation's audio packets add up to
    static final long[][] BPS = {
            {60_000, 100_000, 150_000}, {200_000, 320_000, 500_000}, {700_000, 1_100_000, 1_700_000}};

    final SubscriberAllocator allocator = new SubscriberAllocator(3_000);
    final List<SubscribedTrack> tracks;
    final List<long[]> history = new ArrayList<>(); // {timeMs, spatial (-1 paused)}
    AllocationResult last;
    long lastRunMs = -1_000;

    SimulatedSubscriber() {
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
