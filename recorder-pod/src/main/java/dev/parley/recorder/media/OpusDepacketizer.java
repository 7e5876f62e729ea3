package dev.parley.recorder.media;

/** Opus over RTP (RFC 7587): one packet is one frame, nothing to reassemble. */
public final class OpusDepacketizer implements Depacketizer {
    private long frames;

    @Override
    public void push(byte[] b, int off, int len, FrameSink sink) {
        int p = off + RtpHeader.payloadOffset(b, off, len);
        int n = RtpHeader.payloadLength(b, off, len);
        if (n <= 0) {
            return;
        }
        frames++;
        sink.onFrame(b, p, n, RtpHeader.timestamp(b, off), true);
    }

    @Override
    public long droppedFrames() {
        return 0;
    }

    @Override
    public long completedFrames() {
        return frames;
    }
}
