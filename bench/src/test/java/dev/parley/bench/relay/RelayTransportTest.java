package dev.parley.bench.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.bench.media.Publisher;
import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.srtp.SrtpContext;
import dev.parley.media.srtp.SrtpProfile;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay between two real SFU servers on loopback (docs/sfu.md "Relay between SFUs"): a publisher (three-layer
 * VP8 simulcast + Opus, media-core WebRTC client) on SFU A, a subscriber on SFU B; the test plays the owner
 * controller and asks B to accept and A to send a relay of the audio and only the low video layer. Media reaches
 * the subscriber through the relay; only layer 0 crosses (A's and B's {@code /state}, {@code /metrics}); B's keyframe
 * requests reach A. Bad input on the relay is refused and counted, nothing forwarded.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class RelayTransportTest {
    private static final String MEETING = "m-relay";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static RelayLab lab;
    private static Publisher pub;
    private static RelayLab.Receiver sub;
    private static Thread driver;
    private static JsonNode accepted;

    @BeforeAll
    static void start() throws Exception {
        lab = new RelayLab();
        pub = lab.publish(lab.a, MEETING, "pub");
        sub = lab.subscribe(lab.b, MEETING, "sub", 1, new Recorder(3));
        driver = lab.drive(List.of(pub), List.of(sub.subscriber()));
    }

    @AfterAll
    static void stop() {
        if (driver != null) driver.interrupt();
        if (pub != null) pub.transport.close();
        if (sub != null) sub.subscriber().transport.close();
        if (lab != null) lab.close();
    }

    @Test
    @Order(1)
    void withoutARelayNothingReachesTheOtherSfu() throws Exception {
        Thread.sleep(1500);
        assertThat(pub.sent).as("the publisher sends").isGreaterThan(100);
        assertThat(sub.audio().get() + sub.video().get()).as("a meeting lives on one SFU: nothing crosses without a relay").isZero();
    }

    @Test
    @Order(2)
    void mediaCrossesTheRelayAndOnlyTheLowLayer() throws Exception {
        var r = lab.relay("r1", MEETING, lab.a, lab.b, List.of(
                new RelayLab.TrackLayers("pub:0", "audio", 1, List.of(0)),
                new RelayLab.TrackLayers("pub:1", "video", 3, List.of(0))));
        accepted = r.get("in");
        assertThat(r.get("out").get("tracks").findValuesAsText("track_id")).containsExactly("pub:0", "pub:1");
        waitFor(() -> sub.video().get() > 60 && sub.audio().get() > 60, 15_000, "audio and video at B's subscriber");

        JsonNode outRelay = lab.state(lab.a).get("relays").get(0);
        assertThat(outRelay.get("direction").asText()).isEqualTo("out");
        assertThat(outRelay.get("to_sfu").asText()).isEqualTo("sfu-b");
        JsonNode video = outRelay.get("tracks").get(1);
        assertThat(video.get("track_id").asText()).isEqualTo("pub:1");
        assertThat(video.get("layers").toString()).isEqualTo("[0]");
        JsonNode inRelay = lab.state(lab.b).get("relays").get(0);
        assertThat(inRelay.get("direction").asText()).isEqualTo("in");
        assertThat(inRelay.get("auth_failures").asLong()).isZero();
        JsonNode inVideo = inRelay.get("tracks").get(1);
        assertThat(inVideo.get("origin_sfu").asText()).isEqualTo("sfu-a");
        assertThat(inVideo.get("layers").toString()).isEqualTo("[0]");
        assertThat(inVideo.get("published").asBoolean()).isTrue();

        // the publisher sends q (1 pkt/frame at 15 fps), h (2 at 30) and f (4 at 30): ~195 video pkt/s; only q may cross
        long before = relayedPackets();
        long sentBefore = pub.sent;
        Thread.sleep(3000);
        long relayed = relayedPackets() - before, sent = pub.sent - sentBefore;
        assertThat(relayed).as("relay packets in 3 s").isGreaterThan(100);
        // audio (50/s) + layer q (15/s, keyframes ×3) ≈ 65-100/s out of ~245/s sent: well under half
        assertThat((double) relayed / sent).as("share of the publisher's packets that crossed").isLessThan(0.5);
        String ma = lab.metrics(lab.a);
        assertThat(RelayLab.series(ma, "parley_sfu_relay_layers{direction=\"out\",from_sfu=\"sfu-a\",to_sfu=\"sfu-b\"}")).isEqualTo(2.0);
        assertThat(RelayLab.series(ma, "parley_sfu_relay_packets_total{direction=\"out\",from_sfu=\"sfu-a\",to_sfu=\"sfu-b\"}")).isGreaterThan(100);
        String mb = lab.metrics(lab.b);
        assertThat(RelayLab.series(mb, "parley_sfu_relay_packets_total{direction=\"in\",from_sfu=\"sfu-a\",to_sfu=\"sfu-b\"}")).isGreaterThan(100);
        assertThat(RelayLab.series(mb, "parley_sfu_relay_bytes_total{direction=\"in\",from_sfu=\"sfu-a\",to_sfu=\"sfu-b\"}")).isGreaterThan(10_000);
    }

    @Test
    @Order(3)
    void keyframeRequestsOfTheReceivingSfuReachTheOrigin() {
        // B's slot starts at a keyframe: B's PLI goes over the relay as SRTCP and A turns it into its own PLI
        assertThat(lab.state(lab.b).get("relays").get(0).get("plis_sent").asLong()).isGreaterThan(0);
        assertThat(lab.state(lab.a).get("relays").get(0).get("plis_received").asLong()).isGreaterThan(0);
    }

    @Test
    @Order(3)
    void theOriginSeesTheReceiversReportsPerRelayedLayer() {
        // B reports each relayed layer once a second (loss, highest sequence, jitter on the hop); A shows them per layer
        JsonNode out = lab.state(lab.a).get("relays").get(0);
        assertThat(out.get("receiver_reports").asLong()).isGreaterThan(0);
        JsonNode video = out.get("tracks").get(1).get("receiver_reports");
        assertThat(video).hasSize(1);                                        // one entry: the one layer that crosses
        assertThat(video.get(0).get("cumulative_lost").asInt()).isBetween(0, 50);  // loopback: next to no loss
        assertThat(lab.state(lab.b).get("relays").get(0).get("receiver_reports_sent").asLong()).isGreaterThan(0);
    }

    @Test
    @Order(4)
    void theReceivingSfuAnswersItsSubscribersNacksFromItsOwnCache() throws Exception {
        String ma0 = lab.metrics(lab.a), mb0 = lab.metrics(lab.b);
        int ssrc = sub.lastVideoSsrc(), seq = sub.lastVideoSeq();
        byte[] b = new byte[128];
        int n = Rtcp.writeNack(b, 0, 0x5EED, ssrc, new int[]{(seq - 3) & 0xFFFF, (seq - 2) & 0xFFFF}, 2);
        n = sub.subscriber().transport.tx.protectRtcp(b, 0, n);
        sub.subscriber().transport.send(b, 0, n);
        waitFor(() -> RelayLab.series(lab.metrics(lab.b), "parley_sfu_retransmissions_total")
                >= RelayLab.series(mb0, "parley_sfu_retransmissions_total") + 2, 5000, "B's retransmissions");
        assertThat(RelayLab.series(lab.metrics(lab.b), "parley_sfu_nacks_received_total")).isGreaterThan(RelayLab.series(mb0, "parley_sfu_nacks_received_total"));
        // the NACK ended at B: the origin received none (its only subscriber is the relay) and sent no NACK upstream for it
        String ma1 = lab.metrics(lab.a);
        assertThat(RelayLab.series(ma1, "parley_sfu_nacks_received_total")).isEqualTo(RelayLab.series(ma0, "parley_sfu_nacks_received_total"));
    }

    @Test
    @Order(5)
    void unauthenticatedRelayPacketsAreDroppedAndCounted() throws Exception {
        int wireSsrc = (int) accepted.get("tracks").get(1).get("layers").get(0).get("ssrc").asLong();
        int port = accepted.get("udp_port").asInt();
        double before = refusedPackets();
        long inBefore = lab.state(lab.b).get("relays").get(0).get("packets").asLong();
        // a well-formed SRTP packet on the relay's wire SSRC, sealed with a key the controller never issued
        SrtpContext forged = SrtpContext.fromMaster(SrtpProfile.AEAD_AES_128_GCM, new byte[16], new byte[12]);
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.connect(new InetSocketAddress("127.0.0.1", port));
            for (int i = 0; i < 20; i++) {
                byte[] b = new byte[200];
                b[0] = (byte) 0x80; b[1] = 96;
                RtpPacket.setSequence(b, 0, 40_000 + i);
                RtpPacket.setSsrc(b, 0, wireSsrc);
                int n = forged.protectRtp(b, 0, 100);
                ch.write(ByteBuffer.wrap(b, 0, n));
            }
        }
        // refused by the tag (relay_auth) or, when the forged index lies far behind the stream, by the replay window first
        waitFor(() -> refusedPackets() >= before + 20, 5000, "relay_auth / relay_replay drops");
        JsonNode in = lab.state(lab.b).get("relays").get(0);
        assertThat(in.get("auth_failures").asLong()).isGreaterThanOrEqualTo(20);
        // the legitimate stream goes on; nothing of the forged packets was counted as relayed
        assertThat(in.get("packets").asLong()).isGreaterThan(inBefore);
    }

    @Test
    @Order(7)
    void relayRequestsWithAStaleEpochOrForAnUnknownMeetingAreRefusedAndCounted() {
        ObjectNode stale = acceptBody(MEETING, RelayLab.EPOCH - 1);
        var r = lab.raw(lab.b, "POST", "/internal/v1/relays/in", stale);
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.body()).contains("stale_epoch").contains("\"highest_epoch\":" + RelayLab.EPOCH);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).isEqualTo("application/problem+json");

        var u = lab.raw(lab.b, "POST", "/internal/v1/relays/in", acceptBody("no-such-meeting", RelayLab.EPOCH));
        assertThat(u.statusCode()).isEqualTo(404);

        ObjectNode badKey = acceptBody(MEETING, RelayLab.EPOCH);
        ((ObjectNode) badKey.get("srtp")).put("key", "c2hvcnQ=");
        var k = lab.raw(lab.b, "POST", "/internal/v1/relays/in", badKey);
        assertThat(k.statusCode()).isEqualTo(400);
        assertThat(k.body()).contains("srtp.key").doesNotContain("c2hvcnQ=");

        String m = lab.metrics(lab.b);
        assertThat(RelayLab.series(m, "parley_sfu_relay_refused_total{reason=\"stale_epoch\"}")).isEqualTo(1.0);
        assertThat(RelayLab.series(m, "parley_sfu_relay_refused_total{reason=\"unknown_meeting\"}")).isEqualTo(1.0);
        assertThat(lab.state(lab.b).get("relays")).hasSize(1);             // nothing was set up by the refused requests
    }

    @Test
    @Order(8)
    void aRelayedTrackIsNotRelayedFurtherUnlessAsked() {
        ObjectNode out = JSON.createObjectNode();
        out.put("relay_id", "loop").put("meeting_id", MEETING).put("controller_epoch", RelayLab.EPOCH).put("target_sfu", "sfu-a")
                .put("rtcp_ssrc", 1234);
        out.putObject("target").put("address", "127.0.0.1").put("udp_port", lab.a.udpPort());
        out.set("srtp", RelayLab.srtpKey(JSON));
        out.putArray("tracks").addObject().put("track_id", "pub:1").putArray("layers").addObject().put("index", 0).put("ssrc", 99);
        var r = lab.raw(lab.b, "POST", "/internal/v1/relays/out", out);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("arrives here by relay");
        assertThat(RelayLab.series(lab.metrics(lab.b), "parley_sfu_relay_refused_total{reason=\"relayed_track\"}")).isEqualTo(1.0);

        // nor can a relay bring a track back to the SFU its publisher is on
        ObjectNode back = acceptBody(MEETING, RelayLab.EPOCH);
        var a = lab.raw(lab.a, "POST", "/internal/v1/relays/in", back);
        assertThat(a.statusCode()).isEqualTo(400);
        assertThat(a.body()).contains("pub:0 is published on this SFU");
        assertThat(lab.state(lab.a).get("relays")).hasSize(1);            // only the relay toward B
    }

    @Test
    @Order(9)
    void aNewerControllerEpochFencesTheRelay() throws Exception {
        // the meeting's owner changed: a grant push with a higher epoch reaches A; the old owner's relay stops there
        ObjectNode g = JSON.createObjectNode().put("meeting_id", MEETING).put("controller_epoch", RelayLab.EPOCH + 1);
        g.putArray("grants").add(lab.grant("pub", RelayLab.EPOCH + 1));
        lab.call(lab.a, "PUT", "/internal/v1/grants", g, 200);
        waitFor(() -> lab.state(lab.a).get("relays").isEmpty(), 3000, "relay fenced at the origin");
        assertThat(RelayLab.series(lab.metrics(lab.a), "parley_sfu_drops_total{reason=\"relay_stale_epoch\"}")).isEqualTo(1.0);
        long inBefore = lab.state(lab.b).get("relays").get(0).get("packets").asLong();
        Thread.sleep(1000);
        assertThat(lab.state(lab.b).get("relays").get(0).get("packets").asLong()).as("nothing crosses a fenced relay").isEqualTo(inBefore);
        assertThat(RelayLab.series(lab.metrics(lab.a), "parley_sfu_relays{direction=\"out\",from_sfu=\"sfu-a\",to_sfu=\"sfu-b\"}")).isZero();
    }

    private static ObjectNode acceptBody(String meeting, long epoch) {
        ObjectNode in = JSON.createObjectNode();
        in.put("relay_id", "r-bad").put("meeting_id", meeting).put("controller_epoch", epoch).put("origin_sfu", "sfu-a");
        in.set("srtp", RelayLab.srtpKey(JSON));
        in.putArray("tracks").addObject().put("track_id", "pub:0").put("kind", "audio").putArray("layers").add(0);
        return in;
    }

    private static double refusedPackets() {
        String m = lab.metrics(lab.b);
        return RelayLab.series(m, "parley_sfu_drops_total{reason=\"relay_auth\"}") + RelayLab.series(m, "parley_sfu_drops_total{reason=\"relay_replay\"}");
    }

    private static long relayedPackets() {
        return lab.state(lab.a).get("relays").get(0).get("packets").asLong();
    }

    private static void waitFor(BooleanSupplier c, long ms, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (!c.getAsBoolean()) {
            if (System.currentTimeMillis() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(100);
        }
    }
}
