package dev.parley.sfu.signaling;

import dev.parley.media.ice.IceCredentials;
import dev.parley.media.rtp.ExtensionUris;
import dev.parley.media.sdp.MediaSection;
import dev.parley.media.sdp.SdpException;
import dev.parley.media.sdp.SessionDescription;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public class AnswerBuilderTest {
    static final String FP = "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99";
    static final AnswerBuilder.Candidates CANDS = new AnswerBuilder.Candidates("127.0.0.1", 5000, 5001);

    public static String offer(String dir, boolean simulcast) {
        return String.join("\r\n",
                "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1 2",
                "m=audio 9 UDP/TLS/RTP/SAVPF 111 0", "c=IN IP4 0.0.0.0", "a=ice-ufrag:ufA1", "a=ice-pwd:pwdpwdpwdpwdpwdpwdpwdpwd",
                "a=fingerprint:sha-256 " + FP, "a=setup:actpass", "a=mid:0",
                "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "a=extmap:3 " + ExtensionUris.TRANSPORT_CC,
                "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", "a=" + dir, "a=rtcp-mux", "a=rtcp-rsize",
                "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1;usedtx=1", "a=rtpmap:0 PCMU/8000",
                "a=ssrc:1234 cname:x",
                "m=video 9 UDP/TLS/RTP/SAVPF 98 99 96 97", "c=IN IP4 0.0.0.0", "a=mid:1",
                "a=extmap:3 " + ExtensionUris.TRANSPORT_CC, "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
                "a=" + dir, "a=rtcp-mux",
                "a=rtpmap:98 H264/90000", "a=fmtp:98 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
                "a=rtpmap:99 rtx/90000", "a=fmtp:99 apt=98",
                "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 goog-remb",
                "a=rtcp-fb:96 transport-cc", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
                simulcast ? "a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\na=simulcast:send q;h;f" : "a=ssrc:5678 cname:x",
                "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:2", "a=sctp-port:5000", "");
    }

    @Test
    void publishAnswerIsIceLitePassiveRecvonlyWithSimulcast() {
        IceCredentials local = IceCredentials.random();
        AnswerBuilder.Result r = AnswerBuilder.answer(offer("sendonly", true), true, local, FP, CANDS, Map.of());
        assertThat(r.remoteUfrag()).isEqualTo("ufA1");
        assertThat(r.remoteFingerprint()).isEqualTo(FP);
        SessionDescription a = SessionDescription.parse(r.answer());
        assertThat(a.attribute("ice-lite")).isEqualTo("");
        assertThat(a.attribute("group")).isEqualTo("BUNDLE 0 1");
        MediaSection audio = a.media().get(0), video = a.media().get(1), data = a.media().get(2);
        assertThat(audio.formats()).containsExactly("111");
        assertThat(audio.attribute("fmtp")).isEqualTo("111 minptime=10;useinbandfec=1;usedtx=1");
        assertThat(audio.direction()).isEqualTo("recvonly");
        assertThat(audio.attribute("setup")).isEqualTo("passive");
        assertThat(audio.attribute("ice-ufrag")).isEqualTo(local.ufrag());
        // transport-wide-cc on publish too: the SFU sends the browser transport-cc feedback
        assertThat(audio.extensions()).containsEntry(1, ExtensionUris.AUDIO_LEVEL).containsEntry(3, ExtensionUris.TRANSPORT_CC);
        assertThat(audio.codecs().get(111).feedback()).contains("transport-cc");
        assertThat(r.media().get(1).ext(ExtensionUris.TRANSPORT_CC)).isEqualTo(3);
        assertThat(audio.attributes("candidate")).anyMatch(c -> c.contains(" udp ") && c.contains(" 5000 "))
                .anyMatch(c -> c.contains(" tcp ") && c.contains("tcptype passive"));
        assertThat(video.formats()).containsExactly("96", "97");      // VP8 preferred over H.264, with its RTX
        assertThat(video.rtxFor(96)).isNotNull();
        assertThat(video.rtxFor(96).payloadType()).isEqualTo(97);
        assertThat(r.media().get(1).rtxPayloadType()).isEqualTo(97);
        assertThat(r.media().get(0).rtxPayloadType()).isZero();
        assertThat(video.codecs().get(96).feedback()).contains("nack", "nack pli", "goog-remb", "transport-cc");
        assertThat(video.attributes("rid")).containsExactly("q recv", "h recv", "f recv");
        assertThat(video.attribute("simulcast")).isEqualTo("recv q;h;f");
        assertThat(data.port()).isZero();
        assertThat(r.media().get(1).rids()).containsExactly("q", "h", "f");
        assertThat(r.media().get(0).offeredSsrcs()).containsExactly(1234L);
    }

    @Test
    void subscribeAnswerSendsOnSlotsWithStableSsrcs() {
        AnswerBuilder.Result r = AnswerBuilder.answer(offer("recvonly", false), false, IceCredentials.random(), FP, CANDS, Map.of());
        MediaPlan v = r.media().get(1);
        assertThat(v.sfuSends()).isTrue();
        assertThat(v.slotSsrc()).isNotZero();
        MediaSection video = SessionDescription.parse(r.answer()).media().get(1);
        assertThat(video.direction()).isEqualTo("sendonly");
        // RTX: its own SSRC, grouped with the slot's media SSRC; apt points at the chosen codec
        assertThat(v.slotRtxSsrc()).isNotZero().isNotEqualTo(v.slotSsrc());
        assertThat(v.rtxPayloadType()).isEqualTo(97);
        assertThat(video.ssrcs()).containsExactly(v.slotSsrc(), v.slotRtxSsrc());
        assertThat(video.fidGroups()).containsExactly(Map.entry(v.slotSsrc(), v.slotRtxSsrc()));
        assertThat(video.codecs().get(97).param("apt")).isEqualTo("96");
        // transport-wide-cc toward subscribers, under the id the browser offered; REMB stays as the fallback
        MediaSection audio = SessionDescription.parse(r.answer()).media().get(0);
        assertThat(video.extensions()).containsEntry(3, ExtensionUris.TRANSPORT_CC);
        assertThat(video.codecs().get(96).feedback()).contains("transport-cc", "goog-remb", "nack pli");
        assertThat(audio.extensions()).containsEntry(3, ExtensionUris.TRANSPORT_CC);
        assertThat(audio.codecs().get(111).feedback()).contains("transport-cc");
        assertThat(v.ext(ExtensionUris.TRANSPORT_CC)).isEqualTo(3);
        AnswerBuilder.Result again = AnswerBuilder.answer(offer("recvonly", false), false, IceCredentials.random(), FP, CANDS,
                Map.of("1", new AnswerBuilder.SlotSsrcs(v.slotSsrc(), v.slotRtxSsrc())));
        assertThat(again.media().get(1).slotSsrc()).isEqualTo(v.slotSsrc());
        assertThat(again.media().get(1).slotRtxSsrc()).isEqualTo(v.slotRtxSsrc());
    }

    @Test
    void rejectsOffersWithoutSecurityOrIce() {
        String noFp = offer("sendonly", false).replace("a=fingerprint:sha-256 " + FP + "\r\n", "");
        assertThatThrownBy(() -> AnswerBuilder.answer(noFp, true, IceCredentials.random(), FP, CANDS, Map.of()))
                .isInstanceOf(SdpException.class);
        String noIce = offer("sendonly", false).replace("a=ice-ufrag:ufA1\r\n", "");
        assertThatThrownBy(() -> AnswerBuilder.answer(noIce, true, IceCredentials.random(), FP, CANDS, Map.of()))
                .isInstanceOf(SdpException.class);
    }

    /** The shared offer's video section with VP9 profiles 0 and 2 (and RTX) added, VP9 first when {@code vp9First}. */
    static String offerWithVp9(String dir, boolean vp9First) {
        String o = offer(dir, false);
        String formats = vp9First ? "100 101 102 98 99 96 97" : "98 99 96 97 100 101 102";
        return o.replace("m=video 9 UDP/TLS/RTP/SAVPF 98 99 96 97", "m=video 9 UDP/TLS/RTP/SAVPF " + formats)
                .replace("a=rtpmap:98 H264/90000", String.join("\r\n",
                        "a=rtpmap:100 VP9/90000", "a=rtcp-fb:100 nack", "a=rtcp-fb:100 nack pli", "a=rtcp-fb:100 transport-cc",
                        "a=fmtp:100 profile-id=0", "a=rtpmap:101 rtx/90000", "a=fmtp:101 apt=100",
                        "a=rtpmap:102 VP9/90000", "a=fmtp:102 profile-id=2", "a=rtpmap:98 H264/90000"));
    }

    @Test
    void publisherPreferringVp9PublishesVp9Profile0WithRtx() {
        AnswerBuilder.Result r = AnswerBuilder.answer(offerWithVp9("sendonly", true), true, IceCredentials.random(), FP, CANDS, Map.of());
        MediaPlan v = r.media().get(1);
        assertThat(v.codec()).isEqualTo("VP9");
        assertThat(v.payloadType()).isEqualTo(100);
        assertThat(v.rtxPayloadType()).isEqualTo(101);
        assertThat(v.vp9PayloadType()).isEqualTo(100);
        MediaSection video = SessionDescription.parse(r.answer()).media().get(1);
        assertThat(video.formats()).containsExactly("100", "101");
        assertThat(video.codecs().get(100).fmtp()).isEqualTo("profile-id=0");
        assertThat(video.codecs().get(100).feedback()).contains("nack", "nack pli", "transport-cc");
        assertThat(video.rtxFor(100).payloadType()).isEqualTo(101);
    }

    @Test
    void vp8StaysThePublishDefaultWhenVp9IsOnlyOffered() {
        AnswerBuilder.Result r = AnswerBuilder.answer(offerWithVp9("sendonly", false), true, IceCredentials.random(), FP, CANDS, Map.of());
        MediaPlan v = r.media().get(1);
        assertThat(v.codec()).isEqualTo("VP8");
        assertThat(v.vp9PayloadType()).isZero();
        assertThat(SessionDescription.parse(r.answer()).media().get(1).formats()).containsExactly("96", "97");
    }

    @Test
    void subscribeSlotAcceptsVp9NextToVp8() {
        AnswerBuilder.Result r = AnswerBuilder.answer(offerWithVp9("recvonly", false), false, IceCredentials.random(), FP, CANDS, Map.of());
        MediaPlan v = r.media().get(1);
        assertThat(v.codec()).isEqualTo("VP8");
        assertThat(v.payloadType()).isEqualTo(96);
        assertThat(v.rtxPayloadType()).isEqualTo(97);
        assertThat(v.vp9PayloadType()).isEqualTo(100);
        assertThat(v.vp9RtxPayloadType()).isEqualTo(101);
        MediaSection video = SessionDescription.parse(r.answer()).media().get(1);
        assertThat(video.formats()).containsExactly("96", "97", "100", "101");   // profile 2 (10-bit) is not taken
        assertThat(video.codecs().get(100).fmtp()).isEqualTo("profile-id=0");
        assertThat(video.rtxFor(100).payloadType()).isEqualTo(101);
        assertThat(video.rtxFor(96).payloadType()).isEqualTo(97);
        // without VP9 in the offer nothing changes
        MediaPlan plain = AnswerBuilder.answer(offer("recvonly", false), false, IceCredentials.random(), FP, CANDS, Map.of()).media().get(1);
        assertThat(plain.vp9PayloadType()).isZero();
    }
}
