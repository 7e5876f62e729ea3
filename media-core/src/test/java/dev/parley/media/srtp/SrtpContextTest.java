package dev.parley.media.srtp;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

class SrtpContextTest {
    private static byte[] hex(String s) { return HexFormat.of().parseHex(s.replace(" ", "")); }

    @Test
    void rfc3711AppendixB3KeyDerivation() {
        byte[] key = hex("E1F97A0D3E018BE0D64FA32C06DE4139");
        byte[] salt = hex("0EC675AD498AFEEBB6960B3AABE6");
        assertThat(SrtpKeyDerivation.derive(key, salt, 0, 16)).isEqualTo(hex("C61E7A93744F39EE10734AFE3FF7A087"));
        assertThat(SrtpKeyDerivation.derive(key, salt, 2, 14)).isEqualTo(hex("30CBBC08863D8C85D49DB34A9AE1"));
        assertThat(SrtpKeyDerivation.derive(key, salt, 1, 20)).isEqualTo(hex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"));
    }

    @Test
    void rfc3711AppendixB2Keystream() throws Exception {
        byte[] ks = SrtpContext.keystreamForTest(hex("2B7E151628AED2A6ABF7158809CF4F3C"),
                hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD"), 0, 0, 48);
        assertThat(Arrays.copyOfRange(ks, 0, 16)).isEqualTo(hex("E03EAD0935C95E80E166B16DD92B4EB4"));
        assertThat(Arrays.copyOfRange(ks, 16, 32)).isEqualTo(hex("D23513162B02D0F72A43A2FE4A5F97AB"));
        assertThat(Arrays.copyOfRange(ks, 32, 48)).isEqualTo(hex("41E95B3BB0A2E8DD477901E4FCA894C0"));
    }

    private static SrtpContext gcmVectorContext() {
        byte[] key = hex("000102030405060708090a0b0c0d0e0f");
        byte[] salt = hex("517569642070726f2071756f");
        return new SrtpContext(SrtpProfile.AEAD_AES_128_GCM, new SrtpContext.SessionKeys(key, salt, null, key, salt, null));
    }

    @Test
    void rfc7714Section16AeadAes128GcmRtp() {
        byte[] plain = hex("8040f17b8041f8d35501a0b2" + "47616c6c696120657374206f6d6e69732064697669736120696e207061727465732074726573");
        byte[] expected = hex("8040f17b8041f8d35501a0b2f24de3a3fb34de6cacba861c9d7e4bcabe633bd50d294e6f42a5f47a51c7d19b36de3adf8833899d7f27beb16a9152cf765ee4390cce");
        byte[] buf = Arrays.copyOf(plain, plain.length + 16);
        int n = gcmVectorContext().protectRtp(buf, 0, plain.length);
        assertThat(Arrays.copyOf(buf, n)).isEqualTo(expected);

        byte[] in = expected.clone();
        int m = gcmVectorContext().unprotectRtp(in, 0, in.length);
        assertThat(Arrays.copyOf(in, m)).isEqualTo(plain);
    }

    private static byte[] rtp(int seq, int ssrc, int payloadLen) {
        byte[] b = new byte[12 + payloadLen + 32];
        b[0] = (byte) 0x80; b[1] = 96;
        b[2] = (byte) (seq >>> 8); b[3] = (byte) seq;
        b[8] = (byte) (ssrc >>> 24); b[9] = (byte) (ssrc >>> 16); b[10] = (byte) (ssrc >>> 8); b[11] = (byte) ssrc;
        for (int i = 0; i < payloadLen; i++) b[12 + i] = (byte) (i * 7 + seq);
        return b;
    }

    @Test
    void roundTripTamperReplayAndRolloverForBothProfiles() {
        for (SrtpProfile p : SrtpProfile.values()) {
            byte[] mk = new byte[16], ms = new byte[p.saltLength];
            for (int i = 0; i < 16; i++) mk[i] = (byte) i;
            SrtpContext tx = SrtpContext.fromMaster(p, mk, ms);
            SrtpContext rx = SrtpContext.fromMaster(p, mk, ms);
            int[] seqs = {65533, 65534, 65535, 0, 1, 2};
            for (int seq : seqs) {
                byte[] b = rtp(seq, 0x1234, 100);
                byte[] original = Arrays.copyOf(b, 112);
                int n = tx.protectRtp(b, 0, 112);
                assertThat(n).isEqualTo(112 + p.tagLength);
                assertThat(Arrays.copyOfRange(b, 12, 112)).isNotEqualTo(Arrays.copyOfRange(original, 12, 112));
                byte[] replay = Arrays.copyOf(b, n);
                assertThat(rx.unprotectRtp(b, 0, n)).as(p + " seq " + seq).isEqualTo(112);
                assertThat(Arrays.copyOf(b, 112)).isEqualTo(original);
                assertThat(rx.unprotectRtp(replay, 0, n)).isEqualTo(SrtpContext.ERR_REPLAY);
            }
            byte[] b = rtp(3, 0x1234, 50);
            int n = tx.protectRtp(b, 0, 62);
            b[20] ^= 1;
            assertThat(rx.unprotectRtp(b, 0, n)).isEqualTo(SrtpContext.ERR_AUTH);
            // an untampered copy still passes afterwards: the failed packet did not move state
            byte[] c = rtp(4, 0x1234, 50);
            int cn = tx.protectRtp(c, 0, 62);
            assertThat(rx.unprotectRtp(c, 0, cn)).isEqualTo(62);
            // truncated input is rejected, not thrown
            assertThat(rx.unprotectRtp(c, 0, 5)).isEqualTo(SrtpContext.ERR_MALFORMED);
        }
    }

    @Test
    void srtcpRoundTripAndTamper() {
        for (SrtpProfile p : SrtpProfile.values()) {
            byte[] mk = new byte[16], ms = new byte[p.saltLength];
            mk[3] = 9;
            SrtpContext tx = SrtpContext.fromMaster(p, mk, ms);
            SrtpContext rx = SrtpContext.fromMaster(p, mk, ms);
            byte[] b = new byte[100];
            int len = dev.parley.media.rtcp.Rtcp.writePli(b, 0, 0x11, 0x22);
            byte[] orig = Arrays.copyOf(b, len);
            int n = tx.protectRtcp(b, 0, len);
            assertThat(n).isEqualTo(len + p.tagLength + 4);
            byte[] replay = Arrays.copyOf(b, n);
            assertThat(rx.unprotectRtcp(b, 0, n)).isEqualTo(len);
            assertThat(Arrays.copyOf(b, len)).isEqualTo(orig);
            assertThat(rx.unprotectRtcp(replay, 0, n)).isEqualTo(SrtpContext.ERR_REPLAY);
            len = dev.parley.media.rtcp.Rtcp.writePli(b, 0, 0x11, 0x22);
            n = tx.protectRtcp(b, 0, len);
            b[9] ^= 0x40;
            assertThat(rx.unprotectRtcp(b, 0, n)).isEqualTo(SrtpContext.ERR_AUTH);
        }
    }

    @Test
    void gcmNeverSealsOneIndexTwiceButCmMayResend() {
        SrtpContext gcm = SrtpContext.fromMaster(SrtpProfile.AEAD_AES_128_GCM, new byte[16], new byte[12]);
        assertThat(gcm.protectRtp(rtp(100, 7, 50), 0, 62)).isPositive();
        assertThat(gcm.protectRtp(rtp(102, 7, 50), 0, 62)).isPositive();
        assertThat(gcm.protectRtp(rtp(101, 7, 50), 0, 62)).as("reordered, never sealed").isPositive();
        byte[] again = rtp(101, 7, 50);
        again[20] = 1;                                   // same index, other content: a retransmission with a new header
        assertThat(gcm.protectRtp(again, 0, 62)).isEqualTo(SrtpContext.ERR_NONCE_REUSE);
        assertThat(gcm.protectRtp(rtp(100, 8, 50), 0, 62)).as("another SSRC has its own nonces").isPositive();
        assertThat(gcm.protectRtp(rtp(100 + SealedIndexWindow.SIZE + 5, 7, 50), 0, 62)).isPositive();
        assertThat(gcm.protectRtp(rtp(104, 7, 50), 0, 62)).as("too old to tell").isEqualTo(SrtpContext.ERR_NONCE_REUSE);
        assertThat(gcm.protectRtp(rtp(100 + SealedIndexWindow.SIZE + 4, 7, 50), 0, 62)).as("skipped over, never sealed").isPositive();

        SrtpContext cm = SrtpContext.fromMaster(SrtpProfile.AES128_CM_HMAC_SHA1_80, new byte[16], new byte[14]);
        assertThat(cm.protectRtp(rtp(100, 7, 50), 0, 62)).isPositive();
        assertThat(cm.protectRtp(rtp(100, 7, 50), 0, 62)).as("CM: same keystream over the same payload is a plain resend").isPositive();
    }
}
