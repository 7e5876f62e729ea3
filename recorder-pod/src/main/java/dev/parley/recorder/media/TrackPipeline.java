package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;
import dev.parley.recorder.metrics.RecorderMetrics;
import dev.parley.recorder.segment.ClosedSegment;
import dev.parley.recorder.segment.ContainerWriter;
import dev.parley.recorder.segment.IvfWriter;
import dev.parley.recorder.segment.OggOpusWriter;
import dev.parley.recorder.segment.SegmentMuxer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One track's path: source legs → bounded rings (full = counted recorder-side loss) → stitcher →
 * depacketizer → IVF/Ogg on ffmpeg's stdin → WebM segments. One consumer thread per track; a slow ffmpeg
 * blocks only that thread, never the receive threads.
 */
public final class TrackPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrackPipeline.class);
    private static final int RING = 4096;

    private final TrackSpec spec;
    private final SegmentMuxer muxer;
    private final RtpStitcher stitcher;
    /** Legs with different delays (drain) and networks reorder: wait up to 150 ms for a hole to fill. */
    private final ReorderBuffer reorder = new ReorderBuffer(256, 150_000_000L);
    private final ReorderBuffer.Out inOrder = this::inOrder;
    private final Depacketizer depacketizer;
    private final List<Leg> legs = new CopyOnWriteArrayList<>();
    private final LongAdder received;
    private final LongAdder queueLoss;
    private final LongAdder gapLoss;
    private final RecorderMetrics metrics;
    private final Thread consumer;
    private volatile boolean stopping;
    private volatile long firstPacketWallMs = -1;
    private ContainerWriter writer;
    private long firstTs = -1;
    private long lastTs;
    private long tsHigh;
    private int lastOutSeq = -1;
    private volatile long framesWritten;
    private volatile long lastPts = -1;

    private final class Leg {
        final TrackSource source;
        final SpscPacketRing ring = new SpscPacketRing(RING);
        final int index;
        volatile boolean closing;

        Leg(TrackSource source, int index) {
            this.source = source;
            this.index = index;
        }
    }

    public TrackPipeline(TrackSpec spec, Path spoolDir, int segmentSeconds, String ffmpeg, RecorderMetrics metrics,
                         Consumer<ClosedSegment> onSegment) {
        this.spec = spec;
        this.metrics = metrics;
        this.muxer = new SegmentMuxer(spec.trackId(), spoolDir, segmentSeconds, ffmpeg, onSegment);
        this.stitcher = new RtpStitcher(0x5EC0_0000L | (spec.trackId().hashCode() & 0xFFFF), spec.clockRate());
        this.depacketizer = Depacketizer.forTrack(spec);
        String l = "track=\"" + spec.trackId() + "\"";
        this.received = metrics.counter(RecorderMetrics.RTP_PACKETS, l);
        this.queueLoss = metrics.counter(RecorderMetrics.LOST_PACKETS, l + ",reason=\"queue_full\"");
        this.gapLoss = metrics.counter(RecorderMetrics.LOST_PACKETS, l + ",reason=\"sequence_gap\"");
        this.consumer = Thread.ofPlatform().name("track-" + spec.trackId()).unstarted(this::run);
    }

    public TrackSpec spec() {
        return spec;
    }

    public void start() {
        consumer.start();
    }

    /** Adds a leg (the first source, or the new SFU during a drain) and starts it. */
    public synchronized void addSource(TrackSource source) {
        Leg leg = new Leg(source, stitcher.addLeg());
        legs.add(leg);
        source.start((b, off, len) -> {
            received.increment();
            if (!leg.ring.offer(b, off, len)) {
                queueLoss.increment();
            }
        });
    }

    /** Leaves a leg (the old SFU after the new one carries the track): the stitcher stops using it. */
    public void removeSource(TrackSource source) {
        for (Leg leg : legs) {
            if (leg.source == source) {
                source.close();
                leg.closing = true;
            }
        }
    }

    private void run() {
        byte[] pkt = new byte[SpscPacketRing.MAX_PACKET];
        while (true) {
            boolean any = false;
            for (Leg leg : legs) {
                int len;
                while ((len = leg.ring.poll(pkt)) >= 0) {
                    any = true;
                    handle(leg.index, pkt, len);
                }
                if (leg.closing && leg.ring.size() == 0) {
                    stitcher.closeLeg(leg.index);
                    legs.remove(leg);
                }
            }
            reorder.tick(System.nanoTime(), inOrder);
            if (!any) {
                if (stopping) {
                    reorder.flush(inOrder);
                    break;
                }
                LockSupport.parkNanos(1_000_000);
            }
        }
        try {
            if (writer != null) {
                writer.finish();
            }
        } catch (IOException e) {
            LOG.warn("track {}: closing the container stream: {}", spec.trackId(), e.toString());
        }
    }

    private void handle(int leg, byte[] pkt, int len) {
        long now = System.nanoTime();
        if (!stitcher.accept(leg, pkt, 0, len, now)) {
            return;
        }
        reorder.push(pkt, len, now, inOrder);
    }

    private void inOrder(byte[] pkt, int len) {
        int seq = RtpPacket.sequence(pkt, 0);
        if (lastOutSeq >= 0) {
            int gap = ((seq - lastOutSeq) & 0xFFFF) - 1;
            if (gap > 0 && gap < 32768) {
                gapLoss.add(gap);
            }
        }
        lastOutSeq = seq;
        if (firstPacketWallMs < 0) {
            firstPacketWallMs = System.currentTimeMillis();
        }
        depacketizer.push(pkt, 0, len, this::onFrame);
    }

    private void onFrame(byte[] data, int off, int len, long ts, boolean key) {
        try {
            if (writer == null) {
                if (spec.kind() == TrackSpec.Kind.VIDEO) {
                    int w = Vp8Depacketizer.keyframeWidth(data, len);
                    int h = Vp8Depacketizer.keyframeHeight(data, len);
                    if (w <= 0 || h <= 0) {
                        return;
                    }
                    writer = new IvfWriter(muxer.start("ivf", System.currentTimeMillis()), w, h);
                } else {
                    writer = new OggOpusWriter(muxer.start("ogg", System.currentTimeMillis()), spec.channels(),
                            spec.trackId().hashCode());
                }
                firstTs = ts;
                lastTs = ts;
            }
            // unwrap the 32-bit RTP timestamp
            if (ts < lastTs && lastTs - ts > 0x8000_0000L) {
                tsHigh += 0x1_0000_0000L;
            } else if (ts > lastTs && ts - lastTs > 0x8000_0000L) {
                return; // a frame from before the last wrap: too old
            }
            lastTs = ts;
            long pts = tsHigh + ts - firstTs;
            if (pts <= lastPts && spec.kind() == TrackSpec.Kind.VIDEO) {
                return; // never feed ffmpeg non-increasing timestamps
            }
            writer.writeFrame(data, off, len, pts, key);
            lastPts = pts;
            framesWritten++;
        } catch (IOException e) {
            LOG.warn("track {}: ffmpeg stream broken: {}", spec.trackId(), e.toString());
            metrics.inc(RecorderMetrics.DROPPED_FRAMES, "track=\"" + spec.trackId() + "\"", 1);
        }
    }

    /** Stops the sources, flushes what is queued into ffmpeg, and waits for the last segment. */
    public void stop(long timeoutMs) {
        for (Leg leg : legs) {
            leg.source.close();
        }
        stopping = true;
        try {
            consumer.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        muxer.finish(timeoutMs);
        metrics.inc(RecorderMetrics.DUPLICATE_PACKETS, "track=\"" + spec.trackId() + "\"", stitcher.duplicates());
        metrics.inc(RecorderMetrics.DROPPED_FRAMES, "track=\"" + spec.trackId() + "\"", depacketizer.droppedFrames());
    }

    public long framesWritten() {
        return framesWritten;
    }

    public long lastPacketNanos() {
        long last = 0;
        for (Leg leg : legs) {
            last = Math.max(last, leg.source.lastPacketNanos());
        }
        return last;
    }

    public boolean receivedMedia() {
        return firstPacketWallMs >= 0;
    }

    public RtpStitcher stitcherForMetrics() {
        return stitcher;
    }

    @Override
    public void close() {
        stopping = true;
        for (Leg leg : legs) {
            leg.source.close();
        }
        muxer.close();
    }
}
