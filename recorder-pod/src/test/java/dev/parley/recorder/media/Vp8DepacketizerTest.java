package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class Vp8DepacketizerTest {
    record Frame(long ts, boolean key, int len) {
    }

    /** RTP packet with a VP8 descriptor (X + 15-bit picture id) carrying {@code payload}. */
    static byte[] packet(int seq, long ts, boolean start, boolean marker, byte[] payload) {
        byte[] p = new byte[12 + 4 + payload.length];
        p[0] = (byte) 0x80;
        p[1] = (byte) (96 | (marker ? 0x80 : 0));
        RtpPacket.setSequence(p, 0, seq);
        RtpPacket.setTimestamp(p, 0, ts);
        RtpPacket.setSsrc(p, 0, 1);
        p[12] = (byte) (0x80 | (start ? 0x10 : 0));
        p[13] = (byte) 0x80;
        p[14] = (byte) 0x80;
        p[15] = 7;
        System.arraycopy(payload, 0, p, 16, payload.length);
        return p;
    }

    static byte[] keyStart() {
        return new byte[] {0x10, 0, 0, (byte) 0x9d, 0x01, 0x2a, 0x40, 0x01, (byte) 0xF0, 0x00};
    }

    static byte[] interStart() {
        return new byte[] {0x11, 0, 0, 5};
    }

    @Test
    void reassemblesFramesAndSkipsToTheNextKeyframeAfterLoss() {
        Vp8Depacketizer d = new Vp8Depacketizer();
        List<Frame> out = new ArrayList<>();
        Depacketizer.FrameSink sink = (b, off, len, ts, key) -> out.add(new Frame(ts, key, len));
        int seq = 100;
        // keyframe in 2 packets, inter frame in 2 packets
        push(d, pkt(seq++, 0, true, false, keyStart()), sink);
        push(d, pkt(seq++, 0, false, true, new byte[] {9, 9}), sink);
        push(d, pkt(seq++, 3000, true, false, interStart()), sink);
        push(d, pkt(seq++, 3000, false, true, new byte[] {8}), sink);
        // next inter frame loses its second packet: dropped, and so is the following inter frame
        push(d, pkt(seq++, 6000, true, false, interStart()), sink);
        seq++;
        push(d, pkt(seq++, 9000, true, true, interStart()), sink);
        // a keyframe resumes output
        push(d, pkt(seq++, 12000, true, true, keyStart()), sink);
        assertThat(out).containsExactly(new Frame(0, true, 12), new Frame(3000, false, 5), new Frame(12000, true, 10));
        assertThat(d.droppedFrames()).isEqualTo(2);
        assertThat(Vp8Depacketizer.keyframeWidth(keyStart(), 10)).isEqualTo(320);
        assertThat(Vp8Depacketizer.keyframeHeight(keyStart(), 10)).isEqualTo(240);
    }

    @Test
    void truncatedDescriptorsAreIgnored() {
        Vp8Depacketizer d = new Vp8Depacketizer();
        List<Frame> out = new ArrayList<>();
        byte[] p = new byte[13];
        p[0] = (byte) 0x80;
        p[12] = (byte) 0x80; // X set but no extension byte
        d.push(p, 0, p.length, (b, off, len, ts, key) -> out.add(new Frame(ts, key, len)));
        assertThat(out).isEmpty();
    }

    private static void push(Vp8Depacketizer d, Packet p, Depacketizer.FrameSink sink) {
        d.push(p.bytes(), 0, p.bytes().length, sink);
    }

    private static Packet pkt(int seq, long ts, boolean start, boolean marker, byte[] payload) {
        return new Packet(packet(seq, ts, start, marker, payload));
    }

    record Packet(byte[] bytes) {
    }
}
