package dev.parley.bench.bwe;

import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.allocation.SubscribedTrack;
import dev.parley.sfu.allocation.SubscriberAllocator;
import dev.parley.sfu.allocation.TrackKind;
import dev.parley.sfu.allocation.VideoLayer;
import dev.parley.sfu.bwe.BweConfig;
import dev.parley.sfu.bwe.SendSideBandwidthEstimator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cost of congestion control per subscriber: one operation is what one subscriber transport does per
 * transport-cc feedback (20 per second with browsers): record the packets sent since the last feedback,
 * process the feedback, tick, and (in {@link #feedbackAndAllocate}) re-run the allocator.
 *
 * <p>CPU per 1000 subscribers = ns/op × 20 feedbacks/s × 1000 / 1e9 cores. The subscribers are a pool
 * walked round-robin, so their state is not all in cache (as on a busy SFU).
 *
 * <p>Run: see docs/bwe.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BweAllocationBenchmark {

    /** Subscriber transports in the pool. */
    @Param({"512"})
    int subscribers;

    /** ~2.5 Mbps of 1200-byte packets at 20 feedbacks/s. */
    @Param({"13"})
    int packetsPerFeedback;

    /** Remote participants each subscriber receives (one audio + one camera track each). */
    @Param({"8"})
    int remoteParticipants;

    private SendSideBandwidthEstimator[] bwe;
    private SubscriberAllocator[] allocators;
    private int[] nextSeq;
    private long[] nowMicros;
    private List<SubscribedTrack> tracks;
    private List<SubscribedTrack> tracksCopy;
    private int cursor;

    @Setup
    public void setup() {
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
        // warm every subscriber past startup so the steady state is measured
        for (int round = 0; round < 100; round++) {
            for (int i = 0; i < subscribers; i++) {
                feedback(i);
            }
        }
    }

    /** Send-side recording + one feedback + tick, for one subscriber. */
    @Benchmark
    public long feedback() {
        int i = next();
        return feedback(i);
    }

    /**
     * A full allocation run for one subscriber: the track list alternates between two equal instances, so
     * the allocator cannot reuse its previous decision (as after a layout or subscription change).
     */
    @Benchmark
    public AllocationResult allocateFull() {
        int i = next();
        nowMicros[i] += 50_000;
        return allocators[i].allocate(nowMicros[i] / 1000, bwe[i].estimateBps(),
                ((nowMicros[i] / 50_000) & 1) == 0 ? tracks : tracksCopy);
    }

    /** Feedback plus an allocator call on every feedback (reusing its decision while nothing changed). */
    @Benchmark
    public AllocationResult feedbackAndAllocate() {
        int i = next();
        long estimate = feedback(i);
        AllocationResult r = allocators[i].allocate(nowMicros[i] / 1000, estimate, tracks);
        bwe[i].setDesiredBitrate(r.desiredBps());
        return r;
    }

    /** One packet's send-side bookkeeping: what the forwarding hot path pays per packet. */
    @Benchmark
    public int recordSend() {
        int i = next();
        int seq = nextSeq[i]++ & 0xFFFF;
        nowMicros[i] += 400;
        bwe[i].onPacketSent(seq, nowMicros[i], 1200, -1);
        return seq;
    }

    private int next() {
        int i = cursor++;
        if (cursor == subscribers) {
            cursor = 0;
        }
        return i;
    }

    private long feedback(int i) {
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
            // the benchmark has no pacer: probes are requested and discarded
        }
        nowMicros[i] = now;
        return estimate;
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
