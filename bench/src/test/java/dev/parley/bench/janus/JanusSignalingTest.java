package dev.parley.bench.janus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.Publisher;
import dev.parley.media.sdp.Codec;
import dev.parley.media.sdp.MediaSection;
import dev.parley.media.sdp.SessionDescription;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Janus API messages built and parsed by the bench, and the SDP the load client offers / answers; no Janus needed. */
class JanusSignalingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void coreMessagesCarryTheirTransactionAndFields() throws Exception {
        assertThat(tree(JanusApi.create("t1"))).isEqualTo(JSON.readTree("{\"janus\":\"create\",\"transaction\":\"t1\"}"));
        assertThat(tree(JanusApi.attach("t2", JanusApi.VIDEOROOM)))
                .isEqualTo(JSON.readTree("{\"janus\":\"attach\",\"plugin\":\"janus.plugin.videoroom\",\"transaction\":\"t2\"}"));
        assertThat(tree(JanusApi.keepalive("t3"))).isEqualTo(JSON.readTree("{\"janus\":\"keepalive\",\"transaction\":\"t3\"}"));

        JsonNode m = tree(JanusApi.message("t4", JanusApi.publish(), "offer", "v=0\r\n"));
        assertThat(m.get("janus").asText()).isEqualTo("message");
        assertThat(m.get("transaction").asText()).isEqualTo("t4");
        assertThat(m.get("body").get("request").asText()).isEqualTo("publish");
        assertThat(m.get("jsep").get("type").asText()).isEqualTo("offer");
        assertThat(m.get("jsep").get("sdp").asText()).isEqualTo("v=0\r\n");
        assertThat(tree(JanusApi.message("t5", JanusApi.start(), null, null)).has("jsep")).isFalse();

        JsonNode c = tree(JanusApi.trickle("t6", "0", 0, "candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host"));
        assertThat(c.get("janus").asText()).isEqualTo("trickle");
        assertThat(c.get("candidate").get("sdpMid").asText()).isEqualTo("0");
        assertThat(c.get("candidate").get("sdpMLineIndex").asInt()).isZero();
        assertThat(c.get("candidate").get("candidate").asText()).startsWith("candidate:1 1 udp");
        assertThat(tree(JanusApi.trickleCompleted("t7")).get("candidate"))
                .isEqualTo(JSON.readTree("{\"completed\":true}"));
    }

    @Test
    void videoRoomBodies() throws Exception {
        JsonNode room = tree(JanusApi.createRoom(1001, 4));
        assertThat(room.get("request").asText()).isEqualTo("create");
        assertThat(room.get("room").asLong()).isEqualTo(1001);
        assertThat(room.get("publishers").asInt()).isEqualTo(4);
        assertThat(room.get("audiocodec").asText()).isEqualTo("opus");
        assertThat(room.get("videocodec").asText()).isEqualTo("vp8");
        // extensions the load client does not send stay off, so both servers forward the same packets
        assertThat(room.get("transport_wide_cc_ext").asBoolean()).isFalse();
        assertThat(room.get("audiolevel_ext").asBoolean()).isFalse();

        JsonNode pub = tree(JanusApi.joinPublisher(1001, "m0p1"));
        assertThat(pub.get("request").asText()).isEqualTo("join");
        assertThat(pub.get("ptype").asText()).isEqualTo("publisher");
        assertThat(pub.get("room").asLong()).isEqualTo(1001);
        assertThat(pub.get("display").asText()).isEqualTo("m0p1");

        JsonNode sub = tree(JanusApi.joinSubscriber(1001, List.of(11L, 12L, 13L)));
        assertThat(sub.get("ptype").asText()).isEqualTo("subscriber");
        assertThat(sub.get("streams")).hasSize(3);
        assertThat(sub.get("streams").get(2).get("feed").asLong()).isEqualTo(13);
        assertThat(tree(JanusApi.start()).get("request").asText()).isEqualTo("start");
    }

    @Test
    void parsesRepliesAndLongPollEvents() {
        JanusApi.Reply created = JanusApi.parse("{\"janus\":\"success\",\"transaction\":\"t1\",\"data\":{\"id\":8842921}}").get(0);
        assertThat(created.janus()).isEqualTo("success");
        assertThat(created.transaction()).isEqualTo("t1");
        assertThat(created.dataId()).isEqualTo(8842921L);
        assertThat(created.failure()).isNull();

        // a long poll with maxev > 1 answers an array: the async reply to a join, then a core event
        List<JanusApi.Reply> events = JanusApi.parse("[{\"janus\":\"event\",\"session_id\":5,\"sender\":77,\"transaction\":\"t9\","
                + "\"plugindata\":{\"plugin\":\"janus.plugin.videoroom\",\"data\":{\"videoroom\":\"event\",\"configured\":\"ok\"}},"
                + "\"jsep\":{\"type\":\"answer\",\"sdp\":\"v=0\\r\\n\"}},"
                + "{\"janus\":\"webrtcup\",\"session_id\":5,\"sender\":77}]");
        assertThat(events).hasSize(2);
        assertThat(events.get(0).sender()).isEqualTo(77L);
        assertThat(events.get(0).videoroom()).isEqualTo("event");
        assertThat(events.get(0).pluginData().get("configured").asText()).isEqualTo("ok");
        assertThat(events.get(0).jsepType()).isEqualTo("answer");
        assertThat(events.get(0).jsepSdp()).isEqualTo("v=0\r\n");
        assertThat(events.get(1).janus()).isEqualTo("webrtcup");
        assertThat(events.get(1).transaction()).isNull();

        assertThat(JanusApi.parse("{\"janus\":\"error\",\"transaction\":\"t2\",\"error\":{\"code\":458,\"reason\":\"No such session 5\"}}")
                .get(0).failure()).isEqualTo("458 No such session 5");
        assertThat(JanusApi.parse("{\"janus\":\"event\",\"sender\":3,\"transaction\":\"t3\",\"plugindata\":{\"plugin\":\"janus.plugin.videoroom\","
                + "\"data\":{\"videoroom\":\"event\",\"error_code\":428,\"error\":\"No such feed (9)\"}}}").get(0).failure())
                .isEqualTo("videoroom 428 No such feed (9)");
        assertThatThrownBy(() -> JanusApi.parse("<html>")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void publisherOfferIsOneVp8StreamAndOpusWithTheClientsIceAndDtls() throws Exception {
        try (ClientTransport t = new ClientTransport((tr, b, len, now) -> { })) {
            SessionDescription offer = SessionDescription.parse(new Publisher("p", false).offer(t));
            assertThat(offer.attribute("group")).isEqualTo("BUNDLE 0 1");
            assertThat(offer.media()).extracting(MediaSection::kind).containsExactly("audio", "video");
            for (MediaSection m : offer.media()) {
                assertThat(offer.attribute(m, "ice-ufrag")).isEqualTo(t.local.ufrag());
                assertThat(offer.attribute(m, "ice-pwd")).isEqualTo(t.local.pwd());
                assertThat(offer.attribute(m, "fingerprint")).isEqualTo("sha-256 " + ClientTransport.CERT.fingerprint());
                assertThat(m.attribute("setup")).isEqualTo("actpass");
                assertThat(m.direction()).isEqualTo("sendonly");
                assertThat(m.ssrcs()).hasSize(1);
                assertThat(m.sendRids()).isEmpty();
                assertThat(m.attribute("simulcast")).isNull();
            }
            Codec opus = offer.media().get(0).codecs().get(111);
            assertThat(opus.name()).isEqualTo("opus");
            assertThat(opus.clockRate()).isEqualTo(48000);
            assertThat(opus.channels()).isEqualTo(2);
            Codec vp8 = offer.media().get(1).codecs().get(96);
            assertThat(vp8.name()).isEqualTo("VP8");
            assertThat(vp8.clockRate()).isEqualTo(90000);
            assertThat(offer.media().get(1).codecs()).hasSize(1);
            assertThat(offer.media().get(1).extensionId("urn:ietf:params:rtp-hdrext:sdes:mid")).isEqualTo(4);
            // the simulcast offer of the Parley-only bench is unchanged
            assertThat(new Publisher("p", true).offer(t)).contains("a=simulcast:send q;h;f\r\n").contains("a=rid:f send\r\n");
        }
    }

    /** A subscription offer shaped like Janus 1.1's for two feeds (ICE-Lite, half trickle, RTX and extensions). */
    static final String JANUS_OFFER = "v=0\r\no=- 1733339999000000 1 IN IP4 192.0.2.2\r\ns=VideoRoom 1001\r\nt=0 0\r\n"
            + "a=group:BUNDLE 0 1 2 3\r\na=ice-options:trickle\r\na=fingerprint:sha-256 AA:BB:CC\r\na=ice-lite\r\n"
            + "a=msid-semantic: WMS *\r\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 192.0.2.2\r\na=sendonly\r\na=mid:0\r\na=rtcp-mux\r\n"
            + "a=ice-ufrag:Jn1u\r\na=ice-pwd:janusIcePassword00000000\r\na=ice-options:trickle\r\na=setup:actpass\r\n"
            + "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 useinbandfec=1\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\n"
            + "a=msid:janus janus0\r\na=ssrc:100 cname:janus\r\n"
            + "a=candidate:1 1 udp 2015363327 192.0.2.2 41000 typ host\r\na=end-of-candidates\r\n"
            + "m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 192.0.2.2\r\na=sendonly\r\na=mid:1\r\na=rtcp-mux\r\n"
            + "a=ice-ufrag:Jn1u\r\na=ice-pwd:janusIcePassword00000000\r\na=ice-options:trickle\r\na=setup:actpass\r\n"
            + "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 ccm fir\r\na=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\na=rtcp-fb:96 goog-remb\r\n"
            + "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r\n"
            + "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\na=ssrc-group:FID 101 102\r\na=ssrc:101 cname:janus\r\na=ssrc:102 cname:janus\r\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 192.0.2.2\r\na=sendonly\r\na=mid:2\r\na=rtcp-mux\r\na=setup:actpass\r\n"
            + "a=rtpmap:111 opus/48000/2\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\n"
            + "m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 192.0.2.2\r\na=sendonly\r\na=mid:3\r\na=rtcp-mux\r\na=setup:actpass\r\n"
            + "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack pli\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"
            + "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\n"
            + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 192.0.2.2\r\na=mid:4\r\na=sctp-port:5000\r\n";

    @Test
    void subscriberAnswerMirrorsJanusOfferAsDtlsClient() throws Exception {
        try (ClientTransport t = new ClientTransport((tr, b, len, now) -> { })) {
            SessionDescription answer = SessionDescription.parse(JanusSdp.answer(JANUS_OFFER, t.transportLines("active")));
            assertThat(answer.media()).extracting(MediaSection::mid).containsExactly("0", "1", "2", "3", "4");
            assertThat(answer.attribute("group")).isEqualTo("BUNDLE 0 1 2 3");
            for (int i = 0; i < 4; i++) {
                MediaSection m = answer.media().get(i);
                assertThat(m.port()).isEqualTo(9);
                assertThat(m.direction()).isEqualTo("recvonly");
                assertThat(m.attribute("setup")).isEqualTo("active");
                assertThat(m.attribute("ice-ufrag")).isEqualTo(t.local.ufrag());
                assertThat(m.attribute("fingerprint")).isEqualTo("sha-256 " + ClientTransport.CERT.fingerprint());
                assertThat(m.extensions()).containsExactly(java.util.Map.entry(4, "urn:ietf:params:rtp-hdrext:sdes:mid"));
            }
            assertThat(answer.media().get(0).codecs().keySet()).containsExactly(111);
            assertThat(answer.media().get(1).codecs().keySet()).containsExactly(96, 97);
            assertThat(answer.media().get(1).rtxFor(96).payloadType()).isEqualTo(97);
            assertThat(answer.media().get(1).codecs().get(96).feedback()).containsExactly("nack", "nack pli");
            assertThat(answer.media().get(4).port()).isZero();       // data channel refused
            assertThat(answer.toString()).doesNotContain("a=candidate").doesNotContain("192.0.2.2");
        }
    }

    @Test
    void answerRefusesAnOfferWithoutTheBenchCodecs() {
        String h264Only = JANUS_OFFER.replace("VP8/90000", "H264/90000");
        assertThatThrownBy(() -> JanusSdp.answer(h264Only, "a=setup:active\r\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("VP8");
    }

    @Test
    void candidateAndRoles() {
        assertThat(JanusSdp.candidate("192.0.2.2", 50000)).isEqualTo("candidate:1 1 udp 2130706431 192.0.2.2 50000 typ host");
        assertThat(JanusSdp.remoteIsDtlsClient(JANUS_OFFER.replace("a=setup:actpass", "a=setup:active"))).isTrue();
        assertThat(JanusSdp.remoteIsDtlsClient(JANUS_OFFER)).isFalse();
    }

    private static JsonNode tree(Object node) throws Exception { return JSON.readTree(JSON.writeValueAsString(node)); }
}
