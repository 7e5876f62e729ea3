package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.metrics.SfuMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A publisher that reconnects (a new publish connection, e.g. a new transport generation under load) keeps its
 * track on the SFU but sends it on a new SSRC with new sequence, timestamp and picture-id spaces. A slot forwarding
 * the track must re-base on the new stream as at a switch. Before, it kept its offsets and its temporal filter's
 * and switch point's idea of "the highest packet seen", so every packet of the new stream that numbered below the
 * old one was taken for a late packet and dropped: PagedVideoBrowserIT's viewer received 5 of the page's 6 videos,
 * the missing one's slot showing 409 dropped packets and its publisher a second publish transport.
 */
class PublisherRestartTest {
    private final Router router = new Router(new SfuMetrics(),
            new EventPublisher(new ObjectMapper(), new InternalAuth("publisher-restart-test-0123"), "sfu-test"));
    private final Meeting meeting = new Meeting("m");

    @AfterEach
    void close() { router.close(); }

    private static byte[] vp8(int ssrc, int seq, long ts, int pictureId, boolean keyframe) {
        byte[] b = new byte[40];
        b[0] = (byte) 0x80; b[1] = 96;
        RtpPacket.setSequence(b, 0, seq);
        RtpPacket.setTimestamp(b, 0, ts);
        RtpPacket.setSsrc(b, 0, ssrc);
        b[12] = (byte) 0x90; b[13] = (byte) 0x80;                       // X, S, PID 0 / I (15-bit picture id)
        b[14] = (byte) (0x80 | (pictureId >>> 8)); b[15] = (byte) pictureId;
        b[16] = (byte) (keyframe ? 0x10 : 0x11);                        // VP8 payload header: P bit 0 = keyframe
        return b;
    }

    @Test
    void aSlotForwardingAStreamThePublisherRestartedReBasesAtTheNewStreamsKeyframe() {
        Participant pub = new Participant("pub", meeting), sub = new Participant("sub", meeting), other = new Participant("other", meeting);
        meeting.participants.put("pub", pub);
        meeting.participants.put("sub", sub);
        meeting.participants.put("other", other);
        PublishedTrack cam = new PublishedTrack(pub, "1", true, "VP8", 96, 97, 90000, List.of(), 0);
        PublishedTrack otherCam = new PublishedTrack(other, "1", true, "VP8", 96, 97, 90000, List.of(), 0);
        pub.tracksByMid.put("1", cam);
        other.tracksByMid.put("1", otherCam);
        Layer layer = cam.layers[0];
        layer.ssrc = 1111;                                  // the first connection's stream
        pub.layersBySsrc.put(1111, layer);
        pub.tracksByDeclaredSsrc.put(2222L, cam);           // the new connection's offer declared 2222
        otherCam.layers[0].ssrc = 3333;
        other.layersBySsrc.put(3333, otherCam.layers[0]);

        Slot s = new Slot(sub, "3", true, 0x1234, 100, 0, 0);
        s.attach(cam);
        cam.slots.add(s);
        Slot unrelated = new Slot(sub, "4", true, 0x5678, 100, 0, 0);
        unrelated.attach(otherCam);
        otherCam.slots.add(unrelated);
        Vp8Descriptor d = new Vp8Descriptor();
        byte[] first = vp8(1111, 40000, 900_000, 20000, true);
        d.parse(first, 12, 28);
        s.switchTo(layer, first, 0, d, 0);                // forwarding the first stream, in step with it
        s.lastOutSeq = 40100; s.lastOutTs = 990_000; s.lastOutPid = 20050; s.lastOutNanos = 0; s.packetsSent = 101;
        byte[] o = vp8(3333, 10, 0, 5, true);
        d.parse(o, 12, 28);
        unrelated.switchTo(otherCam.layers[0], o, 0, d, 0);
        assertThat(s.waitingKeyframe).isFalse();

        // the publisher reconnected: its camera arrives on SSRC 2222, numbered from scratch (below the old stream)
        new Ingest(router).onRtp(pub, vp8(2222, 300, 12_000, 7, true), 0, 40, 1_000_000_000L);
        assertThat(layer.ssrc).as("the SFU learned the new stream").isEqualTo(2222);
        assertThat(s.waitingKeyframe).as("the slot waits for the new stream's keyframe to re-base on it").isTrue();
        assertThat(unrelated.waitingKeyframe).as("a slot of another track is left alone").isFalse();

        // at that keyframe (what forward does): the outgoing numbers continue the slot's, the filters start over
        byte[] key = vp8(2222, 300, 12_000, 7, true);
        d.parse(key, 12, 28);
        s.switchTo(layer, key, 0, d, 1_000_000_000L);
        assertThat((300 + s.seqOffset) & 0xFFFF).isEqualTo(40101);
        assertThat((7 + s.pidOffset) & 0x7FFF).isEqualTo(20051);
        assertThat(s.temporal.admit(300, d, true)).as("the new stream's packets are not taken for late ones")
                .isEqualTo(TemporalFilter.FORWARD);
    }

    @Test
    void anAudioSlotSwitchesToTheRestartedStreamAtItsFirstPacket() {
        Participant pub = new Participant("pub", meeting), sub = new Participant("sub", meeting);
        meeting.participants.put("pub", pub);
        meeting.participants.put("sub", sub);
        PublishedTrack mic = new PublishedTrack(pub, "0", false, "opus", 111, 0, 48000, List.of(), 0);
        pub.tracksByMid.put("0", mic);
        Layer layer = mic.layers[0];
        layer.ssrc = 1111;
        pub.layersBySsrc.put(1111, layer);
        pub.tracksByDeclaredSsrc.put(2222L, mic);
        Slot s = new Slot(sub, "0", false, 0x1234, 111, 0, 0);
        s.attach(mic);
        mic.slots.add(s);
        byte[] a = new byte[20];
        a[0] = (byte) 0x80; a[1] = 111;
        RtpPacket.setSequence(a, 0, 5000);
        RtpPacket.setSsrc(a, 0, 1111);
        s.switchTo(layer, a, 0, null, 0);
        assertThat(s.current).isSameAs(layer);

        byte[] b = a.clone();
        RtpPacket.setSequence(b, 0, 7);
        RtpPacket.setSsrc(b, 0, 2222);
        new Ingest(router).onRtp(pub, b, 0, 20, 1_000_000_000L);
        assertThat(s.current).as("the next packet switches (re-bases) the slot").isNull();
    }
}
