package dev.parley.media.rtp;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class RtxTest {
    @Test
    void wrapCarriesOsnAndUnwrapRestoresTheOriginal() {
        byte[] original = RtpPacketTest.oneByte();                   // seq 0x1234, PT 96, SSRC 0x11223344, payload 1 2 3 4
        byte[] rtx = new byte[64];
        int n = Rtx.wrap(original, 0, original.length, rtx, 97, 0x55667788, 7);
        assertThat(n).isEqualTo(original.length + 2);
        assertThat(RtpPacket.payloadType(rtx, 0)).isEqualTo(97);
        assertThat(RtpPacket.marker(rtx, 0)).isTrue();
        assertThat(RtpPacket.sequence(rtx, 0)).isEqualTo(7);
        assertThat(RtpPacket.ssrc(rtx, 0)).isEqualTo(0x55667788);
        assertThat(RtpPacket.timestamp(rtx, 0)).isEqualTo(0x1000);
        assertThat(HeaderExtensions.readString(rtx, 0, n, 1)).isEqualTo("0");  // extensions carried over
        assertThat(Rtx.originalSequence(rtx, 0, n)).isEqualTo(0x1234);
        assertThat(Arrays.copyOfRange(rtx, 28, n)).containsExactly(0x12, 0x34, 1, 2, 3, 4);

        byte[] back = new byte[64];
        int m = Rtx.unwrap(rtx, 0, n, back, 96, 0x11223344);
        assertThat(Arrays.copyOf(back, m)).isEqualTo(original);
    }

    @Test
    void wrapInPlaceAndWithPadding() {
        byte[] b = new byte[64];
        byte[] p = {(byte) 0xA0, 96, 0, 5, 0, 0, 0, 9, 0, 0, 0, 1, 42, 43, 0, 2};   // padding bit, 2 padding bytes
        System.arraycopy(p, 0, b, 0, p.length);
        int n = Rtx.wrap(b, 0, p.length, b, 100, 2, 3);
        assertThat(RtpPacket.payloadLength(b, 0, n)).isEqualTo(4);                // OSN + 42 43, padding kept at the end
        assertThat(Rtx.originalSequence(b, 0, n)).isEqualTo(5);
        byte[] back = new byte[64];
        assertThat(Rtx.unwrap(b, 0, n, back, 96, 1)).isEqualTo(p.length);
        assertThat(Arrays.copyOf(back, p.length)).isEqualTo(p);
    }

    @Test
    void paddingOnlyAndTruncatedRtxAreRejected() {
        byte[] probe = {(byte) 0xA0, 97, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 4};  // 4 bytes of padding, no OSN
        assertThat(Rtx.unwrap(probe, 0, probe.length, new byte[64], 96, 1)).isEqualTo(-1);
        assertThat(Rtx.originalSequence(probe, 0, probe.length)).isEqualTo(-1);
        byte[] shortOne = {(byte) 0x80, 97, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 9};
        assertThat(Rtx.unwrap(shortOne, 0, shortOne.length, new byte[64], 96, 1)).isEqualTo(-1);
        assertThat(Rtx.wrap(shortOne, 0, 5, new byte[64], 97, 1, 1)).isEqualTo(-1);
        assertThat(Rtx.wrap(shortOne, 0, shortOne.length, new byte[13], 97, 1, 1)).isEqualTo(-1);
    }
}
