package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;

/**
 * Reassembles VP8 frames from RTP payloads (RFC 7741). A frame with a missing packet is dropped and
 * frames are skipped until the next keyframe, so the container never receives a frame that can't decode.
 * Expects packets in order (the {@link ReorderBuffer}'s output); a hole it gave up on shows up as loss.
 */
public final class Vp8Depacketizer implements Depacketizer {
    private byte[] frame = new byte[256 * 1024];
    private int frameLen;
    private boolean inFrame;
    private long frameTs;
    private int expectedSeq = -1;
    private boolean needKeyframe = true;
    private long droppedFrames;
    private long completedFrames;

    @Override
    public void push(byte[] b, int off, int len, FrameSink sink) {
        int seq = RtpPacket.sequence(b, off);
        long ts = RtpPacket.timestamp(b, off);
        boolean marker = RtpPacket.marker(b, off);
        int p = off + RtpPacket.headerLength(b, off, len);
        int end = p + RtpPacket.payloadLength(b, off, len);
        boolean gap = expectedSeq >= 0 && seq != expectedSeq;
        expectedSeq = (seq + 1) & 0xFFFF;
        if (p >= end) {
            return;
        }
        int d = b[p] & 0xFF;
        boolean start = (d & 0x10) != 0 && (d & 0x07) == 0;
        int q = p + 1;
        if ((d & 0x80) != 0) { // X: extension byte
            if (q >= end) {
                return;
            }
            int x = b[q++] & 0xFF;
            if ((x & 0x80) != 0) { // I: picture id
                if (q >= end) {
                    return;
                }
                q += (b[q] & 0x80) != 0 ? 2 : 1;
            }
            if ((x & 0x40) != 0) { // L: TL0PICIDX
                q++;
            }
            if ((x & 0x30) != 0) { // T or K
                q++;
            }
        }
        if (q > end) {
            return;
        }
        if (gap || (inFrame && ts != frameTs)) {
            if (inFrame) {
                droppedFrames++;
                needKeyframe = true;
            } else if (gap) {
                needKeyframe = true;
            }
            inFrame = false;
        }
        if (start) {
            if (inFrame) { // previous frame never saw its marker
                droppedFrames++;
                needKeyframe = true;
            }
            inFrame = true;
            frameTs = ts;
            frameLen = 0;
        } else if (!inFrame) {
            return; // middle of a frame whose start we lost
        }
        append(b, q, end - q);
        if (marker) {
            inFrame = false;
            boolean key = frameLen > 0 && (frame[0] & 0x01) == 0;
            if (needKeyframe && !key) {
                droppedFrames++;
                return;
            }
            needKeyframe = false;
            completedFrames++;
            sink.onFrame(frame, 0, frameLen, frameTs, key);
        }
    }

    private void append(byte[] b, int off, int len) {
        if (frameLen + len > frame.length) {
            byte[] bigger = new byte[Math.max(frame.length * 2, frameLen + len)];
            System.arraycopy(frame, 0, bigger, 0, frameLen);
            frame = bigger;
        }
        System.arraycopy(b, off, frame, frameLen, len);
        frameLen += len;
    }

    /** Width from a VP8 keyframe header (RFC 6386 9.1), or -1. */
    public static int keyframeWidth(byte[] f, int len) {
        return len >= 10 && (f[0] & 1) == 0 && (f[3] & 0xFF) == 0x9d && (f[4] & 0xFF) == 0x01
                && (f[5] & 0xFF) == 0x2a ? ((f[6] & 0xFF) | ((f[7] & 0xFF) << 8)) & 0x3FFF : -1;
    }

    public static int keyframeHeight(byte[] f, int len) {
        return keyframeWidth(f, len) < 0 ? -1 : ((f[8] & 0xFF) | ((f[9] & 0xFF) << 8)) & 0x3FFF;
    }

    @Override
    public long droppedFrames() {
        return droppedFrames;
    }

    @Override
    public long completedFrames() {
        return completedFrames;
    }
}
