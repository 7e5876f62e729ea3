package dev.parley.media.sdp;

import dev.parley.media.rtp.ExtensionUris;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SessionDescriptionTest {
    static final String CHROME_OFFER = String.join("\r\n",
            "v=0", "o=- 123 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1", "a=extmap-allow-mixed",
            "a=msid-semantic: WMS",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 63", "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0",
            "a=ice-ufrag:AbCd", "a=ice-pwd:0123456789012345678901", "a=ice-options:trickle",
            "a=fingerprint:sha-256 AA:BB", "a=setup:actpass", "a=mid:0",
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", "a=sendonly", "a=msid:- a1", "a=rtcp-mux",
            "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
            "a=rtpmap:63 red/48000/2", "a=ssrc:1111 cname:x",
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103", "c=IN IP4 0.0.0.0", "a=mid:1",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=sendonly", "a=rtcp-mux",
            "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtpmap:97 rtx/90000",
            "a=fmtp:97 apt=96", "a=rtpmap:102 H264/90000",
            "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
            "a=rtpmap:103 rtx/90000", "a=fmtp:103 apt=102",
            "a=rid:q send", "a=rid:h send", "a=rid:f send", "a=simulcast:send q;h;f", "");

    @Test
    void parsesUnifiedPlanOfferWithSimulcast() {
        SessionDescription d = SessionDescription.parse(CHROME_OFFER);
        assertThat(d.attribute("group")).isEqualTo("BUNDLE 0 1");
        assertThat(d.media()).hasSize(2);
        MediaSection a = d.media().get(0), v = d.media().get(1);
        assertThat(a.kind()).isEqualTo("audio");
        assertThat(a.mid()).isEqualTo("0");
        assertThat(a.direction()).isEqualTo("sendonly");
        assertThat(a.codecs().get(111).name()).isEqualTo("opus");
        assertThat(a.codecs().get(111).channels()).isEqualTo(2);
        assertThat(a.codecs().get(111).param("useinbandfec")).isEqualTo("1");
        assertThat(a.extensionId(ExtensionUris.AUDIO_LEVEL)).isEqualTo(1);
        assertThat(a.ssrcs()).containsExactly(1111L);
        assertThat(d.attribute(a, "ice-ufrag")).isEqualTo("AbCd");
        assertThat(v.codecs().get(97).param("apt")).isEqualTo("96");
        assertThat(v.codecs().get(102).isH264ConstrainedBaseline()).isTrue();
        assertThat(v.codecs().get(96).feedback()).contains("nack", "nack pli");
        assertThat(v.sendRids()).containsExactly("q", "h", "f");
        assertThat(v.extensionId(ExtensionUris.RID)).isEqualTo(10);
        // round trip keeps every line
        assertThat(SessionDescription.parse(d.toString()).toString()).isEqualTo(d.toString());
    }

    @Test
    void rejectsMalformedInput() {
        assertThatThrownBy(() -> SessionDescription.parse("")).isInstanceOf(SdpException.class);
        assertThatThrownBy(() -> SessionDescription.parse("x")).isInstanceOf(SdpException.class);
        assertThatThrownBy(() -> SessionDescription.parse("v=0\r\nm=audio\r\n")).isInstanceOf(SdpException.class);
        assertThatThrownBy(() -> SessionDescription.parse("v=0\r\nm=audio 99999 RTP/AVP 0\r\n")).isInstanceOf(SdpException.class);
        assertThatThrownBy(() -> SessionDescription.parse("v=0\r\nm=audio 9 RTP/AVP x\r\n")).isInstanceOf(SdpException.class);
        assertThatThrownBy(() -> SessionDescription.parse("v=0\r\nm=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU\r\n").media().get(0).codecs())
                .isInstanceOf(SdpException.class);
    }
}
