package dev.parley.recorder.media;

/**
 * Where one track's RTP comes from: a subscription through the SFU in production, plain loopback RTP in
 * the recorder's own tests ({@link LoopbackRtpTrackSource}). During an SFU drain a track has two sources
 * (legs) at once, the old and the new SFU, which {@link RtpStitcher} merges.
 */
public interface TrackSource extends AutoCloseable {
    TrackSpec track();

    /** Starts delivering packets to {@code sink} (from a thread of the source's own). */
    void start(RtpSink sink);

    /** Nanos (System.nanoTime) of the last packet, or 0 if none yet. */
    long lastPacketNanos();

    @Override
    void close();
}
