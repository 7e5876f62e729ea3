package dev.parley.media.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.parley.media.codec.H264Keyframes;
import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.dtls.DtlsRecords;
import dev.parley.media.ice.IceChecks;
import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.HeaderExtensions;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.sdp.MediaSection;
import dev.parley.media.sdp.SdpException;
import dev.parley.media.sdp.SessionDescription;
import dev.parley.media.srtp.SrtpContext;
import dev.parley.media.srtp.SrtpProfile;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jazzer fuzz tests for every network parser: arbitrary input must be rejected (a return code or SdpException),
 * never crash, hang or read out of bounds. In the default build they run their seeds in regression mode.
 */
class ParserFuzzTest {
    private static final SrtpContext SRTP_CM = SrtpContext.fromMaster(SrtpProfile.AES128_CM_HMAC_SHA1_80, new byte[16], new byte[14]);
    private static final SrtpContext SRTP_GCM = SrtpContext.fromMaster(SrtpProfile.AEAD_AES_128_GCM, new byte[16], new byte[12]);

    @FuzzTest(maxDuration = "10s")
    void rtp(FuzzedDataProvider data) {
        int id = data.consumeInt(1, 255);
        byte[] b = data.consumeRemainingAsBytes();
        int len = b.length;
        int hl = RtpPacket.headerLength(b, 0, len);
        assertThat(hl).isLessThanOrEqualTo(len);
        RtpPacket.payloadLength(b, 0, len);
        long f = HeaderExtensions.find(b, 0, len, id);
        if (f != HeaderExtensions.NOT_FOUND) {
            assertThat(HeaderExtensions.offset(f) + HeaderExtensions.length(f)).isLessThanOrEqualTo(len);
        }
        HeaderExtensions.readString(b, 0, len, id);
        HeaderExtensions.audioLevel(b, 0, len, id);
        HeaderExtensions.erase(b, 0, len, id);
        Vp8Descriptor d = new Vp8Descriptor();
        if (hl >= 0) {
            d.parse(b, hl, len - hl);
            H264Keyframes.isKeyframe(b, hl, len - hl);
        }
        byte[] copy = java.util.Arrays.copyOf(b, len + 32);
        assertThat(SRTP_CM.unprotectRtp(copy, 0, len)).isLessThan(len);
        copy = java.util.Arrays.copyOf(b, len + 32);
        assertThat(SRTP_GCM.unprotectRtp(copy, 0, len)).isLessThan(len);
    }

    @FuzzTest(maxDuration = "10s")
    void rtcp(FuzzedDataProvider data) {
        byte[] b = data.consumeRemainingAsBytes();
        int n = Rtcp.validate(b, 0, b.length);
        if (n > 0) {
            for (int o = 0; o >= 0; o = Rtcp.next(b, o, b.length)) {
                assertThat(o + Rtcp.blockLength(b, o)).isLessThanOrEqualTo(b.length);
                if (Rtcp.blockLength(b, o) >= 12 && Rtcp.type(b, o) == Rtcp.RTPFB) {
                    for (int i = 0; i < Rtcp.nackEntries(b, o); i++) { Rtcp.nackPid(b, o, i); Rtcp.nackBlp(b, o, i); }
                }
                if (Rtcp.isRemb(b, o)) Rtcp.rembBitrate(b, o);
            }
        }
        byte[] copy = java.util.Arrays.copyOf(b, b.length + 32);
        SRTP_CM.unprotectRtcp(copy, 0, b.length);
        SRTP_GCM.unprotectRtcp(copy, 0, b.length);
    }

    @FuzzTest(maxDuration = "10s")
    void sdp(FuzzedDataProvider data) {
        String s = data.consumeRemainingAsString();
        try {
            SessionDescription d = SessionDescription.parse(s);
            for (MediaSection m : d.media()) {
                m.codecs();
                m.extensions();
                m.sendRids();
                m.ssrcs();
                m.fidGroups();
            }
            assertThat(SessionDescription.parse(d.toString()).media()).hasSameSizeAs(d.media());
        } catch (SdpException expected) {
            // malformed input is rejected with a clear error
        }
    }

    @FuzzTest(maxDuration = "10s")
    void dtlsRecordsAndStun(FuzzedDataProvider data) {
        byte[] b = data.consumeRemainingAsBytes();
        int n = DtlsRecords.count(b, 0, b.length);
        assertThat(n).isLessThanOrEqualTo(Math.max(1, b.length / DtlsRecords.HEADER));
        var m = new IceChecks().parse(b, 0, b.length);
        if (m != null) IceChecks.verify(m, "key".getBytes(StandardCharsets.UTF_8));
    }
}
