package dev.parley.sfu.relay;

import dev.parley.media.rtp.HeaderExtensions;
import dev.parley.media.rtp.RtpPacket;
import org.junit.jupiter.api.Test;

import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The relay's RTP form and its SRTP key: what crosses between SFUs, byte by byte. */
class RelayWireTest {
    /** A publisher packet: CSRC-free, one-byte extensions mid (id 4) and audio level (id 7, V=1 level 33), 5-byte payload. */
    private static byte[] publisherAudio() {
        byte[] b = new byte[40];
        b[0] = (byte) 0x90; b[1] = (byte) (0x80 | 109);
        RtpPacket.setSequence(b, 0, 0xFFFE);
        RtpPacket.setTimestamp(b, 0, 0xDEADBEEFL);
        RtpPacket.setSsrc(b, 0, 0x11111111);
        b[12] = (byte) 0xBE; b[13] = (byte) 0xDE; b[14] = 0; b[15] = 2;
        b[16] = 0x40; b[17] = '0';                   // mid "0"
        b[18] = 0x70; b[19] = (byte) (0x80 | 33);    // audio level
        b[20] = 0; b[21] = 0; b[22] = 0; b[23] = 0;
        for (int i = 0; i < 5; i++) b[24 + i] = (byte) (i + 1);
        return b;
    }

    @Test
    void audioKeepsNumbersAndLevelUnderTheWireSsrcAndPayloadType() {
        byte[] in = publisherAudio();
        byte[] out = new byte[64];
        int n = RelayWire.write(in, 0, 29, 24, out, 0x22222222, RelayWire.PT_OPUS, 7);
        assertThat(n).isEqualTo(20 + 5);
        assertThat(RtpPacket.ssrc(out, 0)).isEqualTo(0x22222222);
        assertThat(RtpPacket.payloadType(out, 0)).isEqualTo(RelayWire.PT_OPUS);
        assertThat(RtpPacket.marker(out, 0)).isTrue();
        assertThat(RtpPacket.sequence(out, 0)).isEqualTo(0xFFFE);
        assertThat(RtpPacket.timestamp(out, 0)).isEqualTo(0xDEADBEEFL);
        assertThat(RtpPacket.headerLength(out, 0, n)).isEqualTo(20);
        assertThat(HeaderExtensions.audioLevel(out, 0, n, RelayWire.AUDIO_LEVEL_ID)).isEqualTo(33);
        assertThat(HeaderExtensions.find(out, 0, n, 4)).as("the publisher's mid is not carried").isEqualTo(HeaderExtensions.NOT_FOUND);
        for (int i = 0; i < 5; i++) assertThat(out[20 + i]).isEqualTo((byte) (i + 1));
    }

    @Test
    void videoCarriesNoExtensionAndNoCsrcs() {
        byte[] in = publisherAudio();
        in[0] = (byte) 0x92;                          // two CSRCs after the fixed header
        byte[] withCsrc = new byte[48];
        System.arraycopy(in, 0, withCsrc, 0, 12);
        System.arraycopy(in, 12, withCsrc, 20, 17);
        int hl = RtpPacket.headerLength(withCsrc, 0, 37);
        assertThat(hl).isEqualTo(32);
        byte[] out = new byte[64];
        int n = RelayWire.write(withCsrc, 0, 37, hl, out, 7, RelayWire.PT_VP8, 0);
        assertThat(n).isEqualTo(12 + 5);
        assertThat(out[0] & 0xFF).as("version 2, no X, no CSRC").isEqualTo(0x80);
        assertThat(RtpPacket.payloadType(out, 0)).isEqualTo(RelayWire.PT_VP8);
        assertThat(out[12]).isEqualTo((byte) 1);
    }

    @Test
    void codecsMapBothWays() {
        for (String c : new String[]{"opus", "VP8", "VP9", "H264"}) assertThat(RelayWire.codec(RelayWire.payloadType(c))).isEqualTo(c);
        assertThat(RelayWire.codec(0)).isNull();
        assertThat(RelayWire.payloadType("AV1")).isEqualTo(-1);
    }

    @Test
    void keysAreCheckedAndNeverShown() {
        byte[] k = new byte[28];
        k[0] = 1;
        String b64 = Base64.getEncoder().encodeToString(k);
        RelayKey key = RelayKey.parse("AEAD_AES_128_GCM", b64);
        assertThat(key.toString()).doesNotContain(b64);
        // the origin's context seals, the receiver's own context (same key) opens
        byte[] pkt = new byte[100];
        pkt[0] = (byte) 0x80; pkt[1] = 96;
        RtpPacket.setSsrc(pkt, 0, 5);
        int n = key.context().protectRtp(pkt, 0, 40);
        assertThat(key.context().unprotectRtp(pkt, 0, n)).isEqualTo(40);
        assertThatThrownBy(() -> RelayKey.parse("AEAD_AES_128_GCM", Base64.getEncoder().encodeToString(new byte[30])))
                .hasMessageContaining("srtp.key: must be 28 bytes");
        assertThatThrownBy(() -> RelayKey.parse("NULL", b64)).hasMessageContaining("srtp.profile");
        assertThatThrownBy(() -> RelayKey.parse("AEAD_AES_128_GCM", "%%%")).hasMessage("srtp.key: not base64");
    }

    @Test
    void aTileReportIsAnAppPacketNamingTheTracksLayerZeroSsrc() {
        byte[] b = new byte[32];
        int n = RelayWire.writeTile(b, 4, 0x0A0B0C0D, 0xCAFEBABE, 320L << 32 | 180);
        assertThat(n).isEqualTo(RelayWire.TILE_LENGTH);
        assertThat(dev.parley.media.rtcp.Rtcp.validate(b, 4, n)).isGreaterThanOrEqualTo(0);
        assertThat(dev.parley.media.rtcp.Rtcp.type(b, 4)).isEqualTo(dev.parley.media.rtcp.Rtcp.APP);
        assertThat(dev.parley.media.rtcp.Rtcp.blockLength(b, 4)).isEqualTo(RelayWire.TILE_LENGTH);
        assertThat(dev.parley.media.rtcp.Rtcp.senderSsrc(b, 4)).isEqualTo(0x0A0B0C0D);
        assertThat(RelayWire.isTile(b, 4, n)).isTrue();
        assertThat(RelayWire.tileTrackSsrc(b, 4)).isEqualTo(0xCAFEBABE);
        assertThat(RelayWire.tile(b, 4)).isEqualTo(320L << 32 | 180);
        RelayWire.writeTile(b, 4, 1, 2, (long) Integer.MAX_VALUE << 32 | Integer.MAX_VALUE);
        assertThat(RelayWire.tile(b, 4)).as("any size survives the 16-bit fields").isEqualTo((long) Integer.MAX_VALUE << 32 | Integer.MAX_VALUE);
        assertThat(RelayWire.isTile(b, 4, RelayWire.TILE_LENGTH - 4)).as("a block too short for a tile report").isFalse();
        b[12] = 'X';
        assertThat(RelayWire.isTile(b, 4, n)).as("another APP name").isFalse();
    }
}
