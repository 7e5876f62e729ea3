package dev.parley.media.rtp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RtpPacketTest {
    /** RTP header with a one-byte extension block: mid=1 "0", audio-level=3, abs-send-time=2. */
    static byte[] oneByte() {
        return new byte[]{
                (byte) 0x90, (byte) 0xE0, 0x12, 0x34, 0, 0, 0x10, 0, 0x11, 0x22, 0x33, 0x44,
                (byte) 0xBE, (byte) 0xDE, 0, 3,
                0x10, '0', 0x30, (byte) 0x85, 0x22, 0x01, 0x02, 0x03, 0x41, 0x00, 0x07, 0,
                1, 2, 3, 4};
    }

    @Test
    void fixedHeaderFields() {
        byte[] b = oneByte();
        assertThat(RtpPacket.payloadType(b, 0)).isEqualTo(96);
        assertThat(RtpPacket.marker(b, 0)).isTrue();
        assertThat(RtpPacket.sequence(b, 0)).isEqualTo(0x1234);
        assertThat(RtpPacket.timestamp(b, 0)).isEqualTo(0x1000);
        assertThat(RtpPacket.ssrc(b, 0)).isEqualTo(0x11223344);
        assertThat(RtpPacket.headerLength(b, 0, b.length)).isEqualTo(28);
        assertThat(RtpPacket.payloadLength(b, 0, b.length)).isEqualTo(4);
        RtpPacket.setSequence(b, 0, 0xFFFF);
        RtpPacket.setSsrc(b, 0, 0xCAFEBABE);
        RtpPacket.setTimestamp(b, 0, 0xFFFFFFFFL);
        assertThat(RtpPacket.sequence(b, 0)).isEqualTo(0xFFFF);
        assertThat(RtpPacket.ssrc(b, 0)).isEqualTo(0xCAFEBABE);
        assertThat(RtpPacket.timestamp(b, 0)).isEqualTo(0xFFFFFFFFL);
        assertThat(RtpPacket.marker(b, 0)).isTrue();
        assertThat(RtpPacket.seqDelta(2, 65534)).isEqualTo(4);
        assertThat(RtpPacket.headerLength(b, 0, 20)).isEqualTo(-1);
    }

    @Test
    void oneByteExtensionsReadAndRewrite() {
        byte[] b = oneByte();
        assertThat(HeaderExtensions.readString(b, 0, b.length, 1)).isEqualTo("0");
        assertThat(HeaderExtensions.audioLevel(b, 0, b.length, 3)).isEqualTo(5);
        assertThat(HeaderExtensions.absSendTime(b, 0, b.length, 2)).isEqualTo(0x010203);
        assertThat(HeaderExtensions.transportSequence(b, 0, b.length, 4)).isEqualTo(7);
        assertThat(HeaderExtensions.find(b, 0, b.length, 9)).isEqualTo(HeaderExtensions.NOT_FOUND);
        assertThat(HeaderExtensions.rewriteUint16(b, 0, b.length, 4, 0xABCD)).isTrue();
        assertThat(HeaderExtensions.transportSequence(b, 0, b.length, 4)).isEqualTo(0xABCD);
        assertThat(HeaderExtensions.rewriteAbsSendTime(b, 0, b.length, 2, 0x0A0B0C)).isTrue();
        assertThat(HeaderExtensions.absSendTime(b, 0, b.length, 2)).isEqualTo(0x0A0B0C);
        assertThat(HeaderExtensions.erase(b, 0, b.length, 1)).isTrue();
        assertThat(HeaderExtensions.readString(b, 0, b.length, 1)).isNull();
        assertThat(HeaderExtensions.audioLevel(b, 0, b.length, 3)).isEqualTo(5);
    }

    @Test
    void twoByteExtensions() {
        byte[] b = {
                (byte) 0x90, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                0x10, 0x00, 0, 2,
                10, 2, 'h', 'i', 11, 1, 'q', 0};
        assertThat(HeaderExtensions.readString(b, 0, b.length, 10)).isEqualTo("hi");
        assertThat(HeaderExtensions.readString(b, 0, b.length, 11)).isEqualTo("q");
        assertThat(HeaderExtensions.equalsAscii(b, HeaderExtensions.find(b, 0, b.length, 10), "hi".getBytes())).isTrue();
    }

    @Test
    void truncatedExtensionIsNotFound() {
        byte[] b = oneByte();
        b[15] = 40; // claims 40 words
        assertThat(HeaderExtensions.find(b, 0, b.length, 1)).isEqualTo(HeaderExtensions.NOT_FOUND);
        assertThat(RtpPacket.headerLength(b, 0, b.length)).isEqualTo(-1);
    }
}
