package dev.parley.bench.bwe;

import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.allocation.SubscribedTrack;
import dev.parley.sfu.allocation.SubscriberAllocator;
import dev.parley.sfu.allocation.TrackKind;
import dev.parley.sfu.allocation.VideoLayer;
import dev.parley.sfu.bwe.BweConfig;
import dev.parley.sfu.bwe.SendSideBandwidthEstimator;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-subscriber congestion-control work of an SFU, without the SFU: a pool of subscriber transports,
 * each receiving ~2.5 Mbps in 1200-byte packets and a transport-cc feedback every 50 ms (synthetic arrival
 * times: 20 ms path, 0–3 ms jitter, ~1 % loss), and an allocator over 8 remote participants (audio + a
 * three-layer camera each). Shared by the JMH benchmark and the CPU-time measurement.
 */
final class BweWorkload {

    final int subscribers;
    final int packetsPerFeedback;
    final SendSideBandwidthEstimator[] bwe;
    final SubscriberAllocator[] allocators;
    final int[] nextSeq;
    final long[] nowMicros;
    final List<SubscribedTrack> tracks;
    final List<SubscribedTrack> tracksCopy;
    private int cursor;

    BweWorkload(int subscribers, int packetsPerFeedback, int remoteParticipants) {
        this.subscribers = subscribers;
        this.packetsPerFeedback = packetsPerFeedback;
        bwe = new SendSideBandwidthEstimator[subscribers];
        allocators = new SubscriberAllocator[subscribers];
        nextSeq = new int[subscribers];
        nowMicros = new long[subscribers];
        for (int i = 0; i < subscribers; i++) {
            bwe[i] = new SendSideBandwidthEstimator(BweConfig.defaults());
            allocators[i] = new SubscriberAllocator();
            nowMicros[i] = 1_000_000 + i * 997L; // subscribers out of phase
        }
        tracks = tracks(remoteParticipants);
        tracksCopy = tracks(remoteParticipants);
    }

    /** Runs every subscriber through {@code rounds} feedbacks (to get past startup). */
    void warm(int rounds) {
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < subscribers; i++) {
                feedbackAndAllocate(i);
            }
        }
    }

    int next() {
        int i = cursor++;
        if (cursor == subscribers) {
            cursor = 0;
        }
        return i;
    }

    /** 50 ms of one subscriber: its sends, the feedback for them, the tick; returns the estimate. */
    long feedback(int i) {
        SendSideBandwidthEstimator b = bwe[i];
        long start = nowMicros[i];
        int firstSeq = nextSeq[i];
        long spacing = 50_000 / packetsPerFeedback;
        for (int p = 0; p < packetsPerFeedback; p++) {
            b.onPacketSent((firstSeq + p) & 0xFFFF, start + p * spacing, 1200, -1);
        }
        nextSeq[i] = firstSeq + packetsPerFeedback;
        long now = start + 50_000;
        b.onFeedbackStart(now);
        for (int p = 0; p < packetsPerFeedback; p++) {
            int seq = firstSeq + p;
            boolean received = seq % 97 != 0; // ~1 % loss
            long jitter = (seq * 7919L) % 3_000; // deterministic 0..3 ms jitter
            b.onPacketFeedback(seq & 0xFFFF, received, start + p * spacing + 20_000 + jitter);
        }
        long estimate = b.onFeedbackEnd(now);
        b.onTick(now);
        while (b.pollProbeCluster() != null) {
            // no pacer here: probes are requested and discarded
        }
        nowMicros[i] = now;
        return estimate;
    }

    /** Feedback, then the allocator (which reuses its decision while budget and tracks are unchanged). */
    AllocationResult feedbackAndAllocate(int i) {
        long estimate = feedback(i);
        AllocationResult r = allocators[i].allocate(nowMicros[i] / 1000, estimate, tracks);
        bwe[i].setDesiredBitrate(r.desiredBps());
        return r;
    }

    /** A full allocation: alternating equal track lists defeat the allocator's reuse. */
    AllocationResult allocateFull(int i) {
        nowMicros[i] += 50_000;
        return allocators[i].allocate(nowMicros[i] / 1000, bwe[i].estimateBps(),
                ((nowMicros[i] / 50_000) & 1) == 0 ? tracks : tracksCopy);
    }

    /** One packet's send-side bookkeeping. */
    int recordSend(int i) {
        int seq = nextSeq[i]++ & 0xFFFF;
        nowMicros[i] += 400;
        bwe[i].onPacketSent(seq, nowMicros[i], 1200, -1);
        return seq;
    }

    private static List<SubscribedTrack> tracks(int participants) {
        long[][] bps = {{60_000, 100_000, 150_000}, {200_000, 320_000, 500_000}, {700_000, 1_100_000, 1_700_000}};
        int[][] size = {{320, 180}, {640, 360}, {1280, 720}};
        double[] fps = {7.5, 15, 30};
        List<VideoLayer> layers = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            for (int t = 0; t < 3; t++) {
                layers.add(new VideoLayer(s, t, bps[s][t], size[s][0], size[s][1], fps[t]));
            }
        }
        List<SubscribedTrack> out = new ArrayList<>();
        for (int p = 0; p < participants; p++) {
            out.add(SubscribedTrack.audio("a" + p, 40_000));
            // one big tile for the speaker, thumbnails for the rest
            SubscribedTrack cam = SubscribedTrack.video("v" + p, TrackKind.CAMERA,
                    p == 0 ? 1280 : 320, p == 0 ? 720 : 180, layers);
            out.add(p == 0 ? cam.withSpeakerRank(0) : cam);
        }
        return List.copyOf(out);
    }
}
