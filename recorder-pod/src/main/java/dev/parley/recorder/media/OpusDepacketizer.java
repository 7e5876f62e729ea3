package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;

/** Opus over RTP (RFC 7587): one packet is one frame, nothing to reassemble. */
public final class OpusDepacketizer implements Depacketizer {
    private long frames;

    @Override
    public void push(byte[] b, int off, int len, FrameSink sink) {
        int p = off + RtpPacket.headerLength(b, off, len);
        int n = RtpPacket.payloadLength(b, off, len);
        if (n <= 0) {
            return;
        }
        frames++;
        sink.onFrame(b, p, n, RtpPacket.timestamp(b, off), true);
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
