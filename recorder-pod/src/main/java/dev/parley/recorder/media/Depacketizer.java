package dev.parley.recorder.media;

/** Turns a track's RTP packets into codec frames. Single-threaded. */
public interface Depacketizer {
    void push(byte[] b, int off, int len, FrameSink sink);

    long droppedFrames();

    long completedFrames();

    /** One complete frame; {@code data} is only valid during the call. */
    @FunctionalInterface
    interface FrameSink {
        void onFrame(byte[] data, int off, int len, long rtpTimestamp, boolean keyframe);
    }

    static Depacketizer forTrack(TrackSpec spec) {
        return switch (spec.codec().toUpperCase(java.util.Locale.ROOT)) {
            case "VP8" -> new Vp8Depacketizer();
            case "OPUS" -> new OpusDepacketizer();
            default -> throw new IllegalArgumentException("unsupported codec " + spec.codec());
        };
    }
}
