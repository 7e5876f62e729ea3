package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.rtp.RtpPacket;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Layer switches keep the slot's outgoing sequence, timestamp and picture-id spaces continuous. */
class SlotRewriteTest {
    private static byte[] vp8(int seq, long ts, int pictureId) {
        byte[] b = new byte[40];
        b[0] = (byte) 0x80; b[1] = 96;
        RtpPacket.setSequence(b, 0, seq);
        RtpPacket.setTimestamp(b, 0, ts);
        b[12] = (byte) 0x90; b[13] = (byte) 0x80;
        b[14] = (byte) (0x80 | (pictureId >>> 8)); b[15] = (byte) pictureId;
        return b;
    }

    @Test
    void switchContinuesNumberSpaces() {
        Meeting m = new Meeting("m");
        Participant pub = new Participant("pub", m), sub = new Participant("sub", m);
        PublishedTrack t = new PublishedTrack(pub, "1", true, "VP8", 96, 97, 90000, List.of("q", "f"), 0);
        Slot s = new Slot(sub, "3", true, 0x1234, 100, 0, 0);
        s.attach(t);
        Vp8Descriptor d = new Vp8Descriptor();

        byte[] a = vp8(1000, 5000, 300);
        d.parse(a, 12, 28);
        s.switchTo(t.layers[0], a, 0, d, 0);
        assertThat((1000 + s.seqOffset) & 0xFFFF).isEqualTo(1000);     // first layer: identity
        // pretend the slot forwarded up to seq 1010, ts 8000, picture id 305
        s.lastOutSeq = 1010; s.lastOutTs = 8000; s.lastOutPid = 305; s.lastOutNanos = 0;
        s.packetsSent = 11;

        byte[] b = vp8(60000, 4_000_000_000L, 20);                       // other layer: unrelated numbers
        d.parse(b, 12, 28);
        s.switchTo(t.layers[1], b, 0, d, 33_000_000L);                   // 33 ms later
        assertThat((60000 + s.seqOffset) & 0xFFFF).isEqualTo(1011);
        assertThat((4_000_000_000L + s.tsOffset) & 0xFFFFFFFFL).isEqualTo(8000 + 2970);
        assertThat((20 + s.pidOffset) & 0x7FFF).isEqualTo(306);
        assertThat(s.current).isSameAs(t.layers[1]);
        // a later packet of the new layer keeps the same offsets, across the 16-bit wrap
        assertThat((65535 + s.seqOffset) & 0xFFFF).isEqualTo(1011 + 5535);
        assertThat((3 + s.seqOffset) & 0xFFFF).isEqualTo(1011 + 5539);
    }

    @Test
    void aLateRepairForwardedBeforeASwitchDoesNotRewindThePictureNumbers() {
        Meeting m = new Meeting("m");
        Participant pub = new Participant("pub", m), sub = new Participant("sub", m);
        PublishedTrack t = new PublishedTrack(pub, "1", true, "VP8", 96, 97, 90000, List.of("q", "f"), 0);
        Slot s = new Slot(sub, "3", true, 0x1234, 100, 0, 0);
        s.attach(t);
        Vp8Descriptor d = new Vp8Descriptor();
        byte[] a = vp8(1000, 5000, 300);
        d.parse(a, 12, 28);
        s.switchTo(t.layers[1], a, 0, d, 0);
        s.lastOutSeq = 1010; s.lastOutTs = 8000; s.lastOutNanos = 0; s.packetsSent = 11;
        // forwarded: pictures up to 305 (TL0PICIDX 41), then the publisher's late repair of picture 303 (TL0PICIDX 40)
        s.noteVp8Out(305, 15, 41);
        s.noteVp8Out(303, 15, 40);
        assertThat(s.lastOutPid).isEqualTo(305);
        assertThat(s.lastOutTl0).isEqualTo(41);
        // the down-switch's keyframe continues after the newest numbers, not after the repair's
        byte[] b = vp8(60000, 4_000_000_000L, 20);
        d.parse(b, 12, 28);
        s.switchTo(t.layers[0], b, 0, d, 33_000_000L);
        assertThat((20 + s.pidOffset) & 0x7FFF).isEqualTo(306);
        // and across the wraps: 15-bit picture id 32767 → 0, TL0PICIDX 255 → 0 are steps forward
        for (int[] step : new int[][]{{16000, 100}, {32000, 200}, {0x7FFF, 255}, {0, 0}}) s.noteVp8Out(step[0], 15, step[1]);
        assertThat(s.lastOutPid).isZero();
        assertThat(s.lastOutTl0).isZero();
    }

    @Test
    void layerRemembersWhichSequenceNumbersArrived() {
        Meeting m = new Meeting("m");
        PublishedTrack t = new PublishedTrack(new Participant("pub", m), "1", true, "VP8", 96, 97, 90000, List.of(), 0);
        Layer l = t.layers[0];
        assertThat(l.markSeen(65535)).isTrue();
        assertThat(l.markSeen(65535)).as("RTX of a packet that already arrived").isFalse();
        assertThat(l.markSeen(0)).isTrue();
        assertThat(l.markSeen(Layer.SEEN - 1)).isTrue();
        assertThat(l.markSeen(Layer.SEEN)).as("same index as 0, different packet").isTrue();
        assertThat(l.markSeen(0)).as("evicted by the newer one").isTrue();
    }
}
