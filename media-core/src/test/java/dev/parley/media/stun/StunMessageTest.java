package dev.parley.media.stun;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StunMessageTest {
    static final byte[] TXID = Hex.bytes("0102030405060708090a0b0c");

    @Test
    void messageTypesInterleaveMethodAndClass() {
        int[][] cases = {
                {StunMethod.BINDING, 0, 0x0001}, {StunMethod.BINDING, 2, 0x0101}, {StunMethod.BINDING, 3, 0x0111},
                {StunMethod.ALLOCATE, 0, 0x0003}, {StunMethod.ALLOCATE, 2, 0x0103}, {StunMethod.ALLOCATE, 3, 0x0113},
                {StunMethod.REFRESH, 0, 0x0004}, {StunMethod.SEND, 1, 0x0016}, {StunMethod.DATA, 1, 0x0017},
                {StunMethod.CREATE_PERMISSION, 0, 0x0008}, {StunMethod.CHANNEL_BIND, 0, 0x0009},
                {StunMethod.CHANNEL_BIND, 2, 0x0109}, {0xFFF, 3, 0x3FFF}};
        for (int[] c : cases) {
            StunClass cls = StunClass.values()[c[1]];
            assertThat(StunMessageType.of(c[0], cls)).as("%x %s", c[0], cls).isEqualTo(c[2]);
            assertThat(StunMessageType.method(c[2])).isEqualTo(c[0]);
            assertThat(StunMessageType.messageClass(c[2])).isEqualTo(cls);
        }
    }

    @Test
    void turnAttributesRoundTrip() throws Exception {
        ByteBuf out = Unpooled.buffer();
        byte[] key = StunIntegrity.longTermKey("1700000000:p1", "parley", "pw");
        new StunMessageWriter()
                .begin(out, StunMessageType.of(StunMethod.ALLOCATE, StunClass.REQUEST), TXID)
                .requestedTransport(17)
                .uint32(StunAttribute.LIFETIME, 600)
                .evenPort(true)
                .flag(StunAttribute.DONT_FRAGMENT)
                .uint64(StunAttribute.RESERVATION_TOKEN, 0x1122334455667788L)
                .channelNumber(0x4001)
                .xorAddress(StunAttribute.XOR_PEER_ADDRESS, InetAddress.getByName("2001:db8::7"), 5000)
                .xorAddress(StunAttribute.XOR_RELAYED_ADDRESS, InetAddress.getByName("203.0.113.9"), 49152)
                .address(StunAttribute.MAPPED_ADDRESS, InetAddress.getByName("198.51.100.1"), 1234)
                .attribute(StunAttribute.DATA, new byte[] {1, 2, 3, 4, 5})
                .errorCode(438, null)
                .unknownAttributes(0x0031, 0x0032, 0x0033)
                .string(StunAttribute.USERNAME, "1700000000:p1")
                .flag(StunAttribute.USE_CANDIDATE)
                .uint64(StunAttribute.ICE_CONTROLLING, 42)
                .messageIntegrity(key)
                .messageIntegritySha256(key)
                .fingerprint();
        assertThat(Stun.isStun(out)).isTrue();
        StunMessage m = StunMessage.parse(out);
        assertThat(m.method()).isEqualTo(StunMethod.ALLOCATE);
        assertThat(m.isRequest()).isTrue();
        assertThat(m.transactionIdEquals(TXID)).isTrue();
        assertThat(m.requestedTransport()).isEqualTo(17);
        assertThat(m.uint32(StunAttribute.LIFETIME, 0)).isEqualTo(600);
        assertThat(m.bytes(StunAttribute.EVEN_PORT)).containsExactly((byte) 0x80);
        assertThat(m.has(StunAttribute.DONT_FRAGMENT)).isTrue();
        assertThat(m.uint64(StunAttribute.RESERVATION_TOKEN, 0)).isEqualTo(0x1122334455667788L);
        assertThat(m.channelNumber()).isEqualTo(0x4001);
        assertThat(m.xorAddress(StunAttribute.XOR_PEER_ADDRESS))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("2001:db8::7"), 5000));
        assertThat(m.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("203.0.113.9"), 49152));
        assertThat(m.plainAddress(StunAttribute.MAPPED_ADDRESS))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("198.51.100.1"), 1234));
        assertThat(m.bytes(StunAttribute.DATA)).containsExactly(1, 2, 3, 4, 5);
        assertThat(m.errorCode()).isEqualTo(438);
        assertThat(m.unknownAttributes()).containsExactly(0x31, 0x32, 0x33);
        assertThat(m.has(StunAttribute.USE_CANDIDATE)).isTrue();
        assertThat(m.uint64(StunAttribute.ICE_CONTROLLING, 0)).isEqualTo(42);
        assertThat(m.verifyIntegrity(key)).isTrue();
        assertThat(m.verifyIntegritySha256(key)).isTrue();
        assertThat(m.verifyIntegritySha256(StunIntegrity.longTermKey("x", "parley", "pw"))).isFalse();
        assertThat(m.verifyFingerprint()).isTrue();
        assertThat(m.firstUnknownRequired(t -> t != StunAttribute.EVEN_PORT)).isEqualTo(StunAttribute.EVEN_PORT);
        assertThat(m.firstUnknownRequired(t -> true)).isEqualTo(-1);
    }

    @Test
    void attributesAfterIntegrityAreIgnoredExceptFingerprint() throws Exception {
        ByteBuf out = Unpooled.buffer();
        byte[] key = {1, 2, 3};
        new StunMessageWriter().begin(out, 0x0001, TXID).messageIntegrity(key)
                .string(StunAttribute.USERNAME, "late").fingerprint();
        StunMessage m = StunMessage.parse(out);
        assertThat(m.has(StunAttribute.USERNAME)).isFalse();
        assertThat(m.verifyFingerprint()).isTrue();
        // the HMAC covers the message up to MESSAGE-INTEGRITY with the length as if it ended there
        assertThat(m.verifyIntegrity(key)).isTrue();
    }

    @Test
    void ipv4MappedAddressIsWrittenAsIpv4() throws Exception {
        ByteBuf out = Unpooled.buffer();
        byte[] mapped = Hex.bytes("00000000000000000000ffffc0000207");
        new StunMessageWriter().begin(out, 0x0101, TXID).address(StunAttribute.XOR_MAPPED_ADDRESS, mapped, 3478, true);
        StunMessage.StunAddress a = new StunMessage.StunAddress();
        assertThat(StunMessage.parse(out).xorAddress(StunAttribute.XOR_MAPPED_ADDRESS, a)).isTrue();
        assertThat(a.family()).isEqualTo(StunMessage.StunAddress.FAMILY_IPV4);
        assertThat(a.toSocketAddress()).isEqualTo(new InetSocketAddress("192.0.2.7", 3478));
    }

    @Test
    void malformedMessagesAreRefusedWithParseException() {
        byte[] good = Hex.bytes(Rfc5769VectorsTest.SAMPLE_REQUEST);
        assertRefused(new byte[0], "shorter");
        assertRefused(java.util.Arrays.copyOf(good, 19), "shorter");
        assertRefused(java.util.Arrays.copyOf(good, good.length - 4), "length field");
        byte[] b = good.clone();
        b[4] ^= 1;
        assertRefused(b, "cookie");
        b = good.clone();
        b[0] = (byte) 0x80;
        assertRefused(b, "two bits");
        b = good.clone();
        b[3] = 0x59;
        assertRefused(b, "multiple of 4");
        b = good.clone();
        b[23] = 0x40; // SOFTWARE length past the end
        assertRefused(b, "past the message");
        b = java.util.Arrays.copyOf(good, good.length + 8);
        b[3] = (byte) (b[3] + 8);
        b[good.length + 1] = 0x24; // an attribute after FINGERPRINT
        assertRefused(b, "after FINGERPRINT");
        b = good.clone();
        b[good.length - 6] = 0x05; // FINGERPRINT length 5
        assertRefused(b, "");
    }

    @Test
    void corruptedBytesFailVerification() throws Exception {
        byte[] b = Hex.bytes(Rfc5769VectorsTest.SAMPLE_REQUEST);
        b[30] ^= 1; // inside SOFTWARE
        StunMessage m = StunMessage.parse(Unpooled.wrappedBuffer(b));
        assertThat(m.verifyFingerprint()).isFalse();
        assertThat(m.verifyIntegrity(StunIntegrity.shortTermKey(Rfc5769VectorsTest.PASSWORD))).isFalse();
        assertThat(m.verifyIntegrity(new byte[0])).isFalse();
    }

    @Test
    void badAttributeValuesAreParseErrorsOnAccess() throws Exception {
        ByteBuf out = Unpooled.buffer();
        new StunMessageWriter().begin(out, 0x0003, TXID)
                .attribute(StunAttribute.LIFETIME, new byte[] {1, 2})
                .attribute(StunAttribute.XOR_PEER_ADDRESS, new byte[] {0, 3, 0, 0, 1, 2, 3, 4})
                .attribute(StunAttribute.ERROR_CODE, new byte[] {0, 0, 9, 0});
        StunMessage m = StunMessage.parse(out);
        assertThatThrownBy(() -> m.uint32(StunAttribute.LIFETIME, 0)).isInstanceOf(StunParseException.class);
        assertThatThrownBy(() -> m.xorAddress(StunAttribute.XOR_PEER_ADDRESS)).isInstanceOf(StunParseException.class);
        assertThatThrownBy(m::errorCode).isInstanceOf(StunParseException.class);
    }

    @Test
    void demuxChecks() {
        assertThat(Stun.isStun(Hex.buf(Rfc5769VectorsTest.SAMPLE_REQUEST))).isTrue();
        assertThat(Stun.isStun(Hex.buf("40010004 01020304"))).isFalse();
        assertThat(Stun.isStun(Hex.buf("80 60 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"))).isFalse(); // RTP
        assertThat(ChannelData.isChannelData(Hex.buf("40010004 01020304"))).isTrue();
        assertThat(ChannelData.isChannelData(Hex.buf(Rfc5769VectorsTest.SAMPLE_REQUEST))).isFalse();
    }

    @Test
    void channelDataFraming() throws Exception {
        ByteBuf out = Unpooled.buffer();
        ChannelData.writeHeader(out, 0x4abc, 5);
        out.writeBytes("voice".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        ChannelData.writeStreamPadding(out, 5);
        assertThat(out.readableBytes()).isEqualTo(ChannelData.streamFrameLength(5)).isEqualTo(12);
        assertThat(ChannelData.validate(out)).isEqualTo(5);
        assertThat(ChannelData.channel(out)).isEqualTo(0x4abc);
        assertThatThrownBy(() -> ChannelData.validate(Hex.buf("40010010 0102"))).isInstanceOf(StunParseException.class);
        assertThatThrownBy(() -> ChannelData.validate(Hex.buf("3fff0001 01"))).isInstanceOf(StunParseException.class);
        assertThatThrownBy(() -> ChannelData.validate(Hex.buf("5000 0001 01"))).isInstanceOf(StunParseException.class);
        assertThatThrownBy(() -> ChannelData.validate(Hex.buf("40"))).isInstanceOf(StunParseException.class);
        assertThat(ChannelData.isValidChannel(0x7fff)).isFalse();
        assertThat(ChannelData.isLegacyValidChannel(0x7fff)).isTrue();
        assertThat(ChannelData.isLegacyChannelData(Hex.buf("7fff0000"))).isTrue();
        assertThat(ChannelData.isLegacyChannelData(Hex.buf("8000000000"))).isFalse();
    }

    @Test
    void saslPrepMapsAndProhibits() {
        assertThat(SaslPrep.prepare("I\u00ADX")).isEqualTo("IX");
        assertThat(SaslPrep.prepare("user")).isEqualTo("user");
        assertThat(SaslPrep.prepare("\u00AA")).isEqualTo("a");
        assertThat(SaslPrep.prepare("\u2168")).isEqualTo("IX");
        assertThat(SaslPrep.prepare("a\u00A0b")).isEqualTo("a b");
        assertThatThrownBy(() -> SaslPrep.prepare("\u0007")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SaslPrep.prepare("\u0627\u0031")).isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertRefused(byte[] bytes, String messagePart) {
        assertThatThrownBy(() -> StunMessage.parse(Unpooled.wrappedBuffer(bytes)))
                .isInstanceOf(StunParseException.class).hasMessageContaining(messagePart);
    }
}
