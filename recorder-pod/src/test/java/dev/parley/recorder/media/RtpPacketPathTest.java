package dev.parley.recorder.media;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the recorder's packet path (stitcher gate, then the depacketizers) takes from an RTP header: CSRCs,
 * header extensions and padding are skipped exactly, the marker ends a VP8 frame, SSRCs with the high bit set
 * survive, and malformed packets or RTCP on a muxed port never reach a track. Packets are built byte by byte
 * here, independent of any parser.
 */
class RtpPacketPathTest {
    record Frame(byte[] data, long ts, boolean key) {
    }

    /** version 2; {@code csrcs} CSRCs, an extension of {@code extWords} words, {@code pad} padding bytes. */
    static byte[] rtp(int pt, boolean marker, int seq, long ts, int csrcs, int extWords, int pad, byte[] payload) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(0x80 | (pad > 0 ? 0x20 : 0) | (extWords >= 0 ? 0x10 : 0) | csrcs);
        o.write((marker ? 0x80 : 0) | pt);
        o.write(seq >>> 8);
        o.write(seq);
        for (int s = 24; s >= 0; s -= 8) {
            o.write((int) (ts >>> s));
        }
        o.writeBytes(new byte[] {0x11, 0x22, 0x33, 0x44}); // SSRC
        for (int i = 0; i < csrcs; i++) {
            o.writeBytes(new byte[] {(byte) 0xC0, 0, 0, (byte) i});
        }
        if (extWords >= 0) {
            o.writeBytes(new byte[] {(byte) 0xBE, (byte) 0xDE, (byte) (extWords >>> 8), (byte) extWords});
            for (int i = 0; i < 4 * extWords; i++) {
                o.write(0xEE);
            }
        }
        o.writeBytes(payload);
        for (int i = 1; i < pad; i++) {
            o.write(0);
        }
        if (pad > 0) {
            o.write(pad);
        }
        return o.toByteArray();
    }

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    static RtpStitcher gate() {
        RtpStitcher st = new RtpStitcher(0x1234, 48_000);
        st.addLeg();
        return st;
    }

    static List<Frame> opus(byte[]... packets) {
        RtpStitcher st = gate();
        OpusDepacketizer d = new OpusDepacketizer();
        List<Frame> out = new ArrayList<>();
        long now = 0;
        for (byte[] p : packets) {
            if (st.accept(0, p, 0, p.length, now += 20_000_000)) {
                d.push(p, 0, p.length, (b, off, len, ts, key) -> out.add(
                        new Frame(Arrays.copyOfRange(b, off, off + len), ts, key)));
            }
        }
        return out;
    }

    @Test
    void csrcsExtensionAndPaddingAreSkippedExactly() {
        byte[] payload = bytes(0xFC, 1, 2, 3, 4, 5);
        for (int csrcs : new int[] {0, 1, 15}) {
            for (int ext : new int[] {-1, 0, 1, 3}) {
                for (int pad : new int[] {0, 1, 4, 255}) {
                    List<Frame> out = opus(rtp(111, false, 7, 0xFFFF_FFF0L, csrcs, ext, pad, payload));
                    assertThat(out).as("csrcs %d ext %d pad %d", csrcs, ext, pad).hasSize(1);
                    assertThat(out.get(0).data()).isEqualTo(payload);
                    assertThat(out.get(0).ts()).isEqualTo(0xFFFF_FFF0L);
                }
            }
        }
    }

    @Test
    void paddingThatFillsThePayloadLeavesAnEmptyPacketThatMakesNoFrame() {
        byte[] p = rtp(111, false, 7, 960, 0, -1, 4, new byte[0]);
        RtpStitcher st = gate();
        assertThat(st.accept(0, p, 0, p.length, 0)).isTrue(); // well-formed, it only carries nothing
        assertThat(opus(rtp(111, false, 7, 960, 0, -1, 4, new byte[0]))).isEmpty();
    }

    @Test
    void theMarkerEndsAVp8FrameAcrossPacketsWithCsrcsExtensionAndPadding() {
        RtpStitcher st = new RtpStitcher(0x1234, 90_000);
        st.addLeg();
        Vp8Depacketizer d = new Vp8Depacketizer();
        List<Frame> out = new ArrayList<>();
        byte[] key = bytes(0x10, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xF0, 0x00);
        byte[] rest = bytes(0xAB, 0xCD);
        // descriptor: S=1 start of partition 0 / a continuation
        byte[] first = rtp(96, false, 100, 3000, 2, 1, 3, concat(bytes(0x10), key));
        byte[] second = rtp(96, true, 101, 3000, 1, 2, 0, concat(bytes(0x00), rest));
        for (byte[] p : new byte[][] {first, second}) {
            if (st.accept(0, p, 0, p.length, 0)) {
                d.push(p, 0, p.length, (b, off, len, ts, k) -> out.add(
                        new Frame(Arrays.copyOfRange(b, off, off + len), ts, k)));
            }
            if (p == first) {
                assertThat(out).as("no frame before the marker").isEmpty();
            }
        }
        assertThat(out).hasSize(1);
        assertThat(out.get(0).data()).isEqualTo(concat(key, rest));
        assertThat(out.get(0).key()).isTrue();
        assertThat(out.get(0).ts()).isEqualTo(3000);
    }

    @Test
    void anSsrcWithTheHighBitSetIsWrittenWhole() {
        RtpStitcher st = new RtpStitcher(0xF00DBEEFL, 48_000);
        st.addLeg();
        byte[] p = rtp(111, false, 1, 960, 0, -1, 0, bytes(1, 2));
        assertThat(st.accept(0, p, 0, p.length, 0)).isTrue();
        assertThat(Arrays.copyOfRange(p, 8, 12)).isEqualTo(bytes(0xF0, 0x0D, 0xBE, 0xEF));
    }

    @Test
    void malformedPacketsNeverReachATrack() {
        byte[] ok = rtp(111, false, 1, 960, 0, -1, 0, bytes(1, 2, 3));
        assertThat(opus(ok)).hasSize(1);
        List<byte[]> bad = new ArrayList<>();
        bad.add(Arrays.copyOf(ok, 11)); // shorter than the fixed header
        byte[] v1 = ok.clone();
        v1[0] = 0x40; // version 1
        bad.add(v1);
        byte[] csrcs = ok.clone();
        csrcs[0] = (byte) 0x81; // claims a CSRC the packet doesn't have room for
        bad.add(Arrays.copyOf(csrcs, 14));
        byte[] ext = rtp(111, false, 1, 960, 0, 0, 0, new byte[0]);
        bad.add(Arrays.copyOf(ext, 14)); // X set, extension header cut
        byte[] extLong = rtp(111, false, 1, 960, 0, 1, 0, bytes(1, 2));
        extLong[15] = 5; // claims 5 words
        bad.add(extLong);
        byte[] padLong = rtp(111, false, 1, 960, 0, -1, 2, bytes(1, 2));
        padLong[padLong.length - 1] = 9; // more padding than payload
        bad.add(padLong);
        byte[] padZero = rtp(111, false, 1, 960, 0, -1, 1, bytes(1, 2));
        padZero[padZero.length - 1] = 0; // RFC 3550 5.1: the count includes itself, so 0 is malformed
        bad.add(padZero);
        for (byte[] p : bad) {
            assertThat(gate().accept(0, p, 0, p.length, 0)).as(Arrays.toString(p)).isFalse();
        }
    }

    @Test
    void rtcpOnAMuxedPortIsNeverMediaAndRtpIsSplitFromItByTheWholeSecondByte() {
        // RFC 5761 4: second byte 192..223 is RTCP (SR, RR, SDES, BYE, APP, RTPFB, PSFB, XR, ...)
        for (int type = 192; type <= 223; type++) {
            byte[] rtcp = bytes(0x81, type, 0, 3, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0);
            assertThat(gate().accept(0, rtcp, 0, rtcp.length, 0)).as("RTCP type %d", type).isFalse();
        }
        // payload types 72..76 without the marker are not RTCP (SR..APP always have the top bit set); the
        // loopback source drops them by payload type, the SFU source never sees them on a negotiated slot
        for (int pt = 72; pt <= 76; pt++) {
            byte[] p = rtp(pt, false, 1, 960, 0, -1, 0, bytes(1));
            assertThat(gate().accept(0, p, 0, p.length, 0)).as("RTP pt %d", pt).isTrue();
        }
        // the recorder's own payload types, marker or not
        for (int pt : new int[] {96, 111}) {
            for (boolean m : new boolean[] {false, true}) {
                byte[] p = rtp(pt, m, 1, 960, 0, -1, 0, bytes(1));
                assertThat(gate().accept(0, p, 0, p.length, 0)).isTrue();
            }
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
