package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RtpStitcherTest {
    /** The publisher's packets: payload i carries its index so the output can be checked. */
    record Source(int count, int seq0, long ts0, int tsStep) {
        byte[] packet(int i, long ssrc, int seqOffset, long tsOffset) {
            byte[] p = new byte[12 + 8];
            p[0] = (byte) 0x80;
            p[1] = (byte) (96 | (i % 3 == 2 ? 0x80 : 0));
            RtpPacket.setSequence(p, 0, (seq0 + i + seqOffset) & 0xFFFF);
            RtpPacket.setTimestamp(p, 0, (ts0 + (long) (i / 3) * tsStep + tsOffset) & 0xFFFFFFFFL);
            RtpPacket.setSsrc(p, 0, (int) ssrc);
            for (int k = 0; k < 4; k++) {
                p[12 + k] = (byte) (i >>> (24 - 8 * k));
            }
            p[16] = (byte) 0x5A; // constant payload bytes: identity is the index
            return p;
        }
    }

    record Out(int index, int seq, long ts, long ssrc) {
    }

    static Out out(byte[] p) {
        int idx = ((p[12] & 0xFF) << 24) | ((p[13] & 0xFF) << 16) | ((p[14] & 0xFF) << 8) | (p[15] & 0xFF);
        return new Out(idx, RtpPacket.sequence(p, 0), RtpPacket.timestamp(p, 0), RtpPacket.ssrc(p, 0) & 0xFFFFFFFFL);
    }

    /** Output must be every index exactly once, seq continuous, ts consistent with the source. */
    static void assertContinuous(List<Out> outs, Source src, int expectedCount) {
        assertThat(outs).extracting(Out::index).doesNotHaveDuplicates();
        assertThat(outs.stream().map(Out::index).sorted().toList())
                .isEqualTo(java.util.stream.IntStream.range(0, expectedCount).boxed().toList());
        Out first = outs.stream().filter(o -> o.index() == 0).findFirst().orElseThrow();
        for (Out o : outs) {
            assertThat(o.ssrc()).isEqualTo(0x1234L);
            assertThat(o.seq()).isEqualTo((first.seq() + o.index()) & 0xFFFF);
            assertThat(o.ts()).isEqualTo((first.ts() + (long) (o.index() / 3) * src.tsStep()) & 0xFFFFFFFFL);
        }
    }

    @Test
    void overlappingLegsWithRewrittenHeadersGiveOneContinuousStream() {
        Source src = new Source(600, 65_000, 4_294_900_000L, 3000); // wraps seq and ts on the way
        RtpStitcher st = new RtpStitcher(0x1234, 90_000);
        int a = st.addLeg();
        List<Out> outs = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < 300; i++) {
            byte[] p = src.packet(i, 0xAAAA, 0, 0);
            if (st.accept(a, p, 0, p.length, now += 1_000_000)) {
                outs.add(out(p));
            }
        }
        // the new SFU's leg joins: other SSRC, sequence and timestamp spaces; both deliver 250..399
        int b = st.addLeg();
        for (int i = 250; i < 400; i++) {
            byte[] pb = src.packet(i, 0xBBBB, 12_345, 987_654_321L);
            if (st.accept(b, pb, 0, pb.length, now += 500_000)) {
                outs.add(out(pb));
            }
            if (i >= 300) {
                byte[] pa = src.packet(i, 0xAAAA, 0, 0);
                if (st.accept(a, pa, 0, pa.length, now += 500_000)) {
                    outs.add(out(pa));
                }
            }
        }
        st.closeLeg(a);
        for (int i = 400; i < 600; i++) {
            byte[] pb = src.packet(i, 0xBBBB, 12_345, 987_654_321L);
            if (st.accept(b, pb, 0, pb.length, now += 1_000_000)) {
                outs.add(out(pb));
            }
        }
        assertContinuous(outs, src, 600);
        assertThat(st.duplicates()).isEqualTo(150); // 250..399 arrived on both legs
        assertThat(st.blindSwitches()).isZero();
        assertThat(st.forwarded()).isEqualTo(600);
    }

    @Test
    void newLegAheadOfOldLegAlignsWhenTheOldLegCatchesUp() {
        Source src = new Source(300, 100, 1000, 960);
        RtpStitcher st = new RtpStitcher(0x1234, 48_000);
        int a = st.addLeg();
        int b = st.addLeg();
        List<Out> outs = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < 100; i++) {
            byte[] p = src.packet(i, 1, 0, 0);
            if (st.accept(a, p, 0, p.length, now += 1)) {
                outs.add(out(p));
            }
        }
        // B is 20 packets ahead of A during the overlap
        for (int i = 100; i < 220; i++) {
            byte[] pb = src.packet(i + 20, 2, 7, 70_000);
            if (st.accept(b, pb, 0, pb.length, now += 1)) {
                outs.add(out(pb));
            }
            byte[] pa = src.packet(i, 1, 0, 0);
            if (st.accept(a, pa, 0, pa.length, now += 1)) {
                outs.add(out(pa));
            }
        }
        st.closeLeg(a);
        for (int i = 240; i < 300; i++) {
            byte[] pb = src.packet(i, 2, 7, 70_000);
            if (st.accept(b, pb, 0, pb.length, now += 1)) {
                outs.add(out(pb));
            }
        }
        // B's first 20 packets (120..139) came before alignment but A delivered them too
        assertContinuous(outs, src, 300);
        assertThat(st.blindSwitches()).isZero();
    }

    @Test
    void reorderedPacketsAreForwardedOnceAndLateDuplicatesDropped() {
        Source src = new Source(200, 0, 0, 3000);
        RtpStitcher st = new RtpStitcher(0x1234, 90_000);
        int a = st.addLeg();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            order.add(i);
        }
        java.util.Collections.shuffle(order.subList(10, 190), new Random(7)); // heavy local reordering
        List<Out> outs = new ArrayList<>();
        for (int i : order) {
            byte[] p = src.packet(i, 9, 0, 0);
            if (st.accept(a, p, 0, p.length, i)) {
                outs.add(out(p));
            }
        }
        byte[] again = src.packet(150, 9, 0, 0);
        assertThat(st.accept(a, again, 0, again.length, 999)).isFalse();
        assertContinuous(outs, src, 200);
        assertThat(st.duplicates()).isEqualTo(1);
    }

    @Test
    void oldLegGoneBeforeOverlapIsAppendedBlindAndCounted() {
        Source src = new Source(100, 0, 0, 3000);
        RtpStitcher st = new RtpStitcher(0x1234, 90_000);
        int a = st.addLeg();
        for (int i = 0; i < 50; i++) {
            byte[] p = src.packet(i, 1, 0, 0);
            assertThat(st.accept(a, p, 0, p.length, i * 11_111_111L)).isTrue();
        }
        st.closeLeg(a);
        int b = st.addLeg();
        byte[] p = src.packet(60, 2, 500, 5000); // 10 packets never seen by anyone
        assertThat(st.accept(b, p, 0, p.length, 60 * 11_111_111L)).isTrue();
        assertThat(RtpPacket.sequence(p, 0)).isEqualTo(50); // next output sequence number: no hole for ffmpeg
        assertThat(st.blindSwitches()).isEqualTo(1);
    }

    @Test
    void garbageIsRejectedWithoutException() {
        RtpStitcher st = new RtpStitcher(1, 90_000);
        int a = st.addLeg();
        assertThat(st.accept(a, new byte[5], 0, 5, 0)).isFalse();
        byte[] rtcp = new byte[28];
        rtcp[0] = (byte) 0x80;
        rtcp[1] = (byte) 200;
        assertThat(st.accept(a, rtcp, 0, rtcp.length, 0)).isFalse();
        byte[] badExt = new byte[16];
        badExt[0] = (byte) 0x90;
        badExt[14] = (byte) 0xFF;
        assertThat(st.accept(a, badExt, 0, badExt.length, 0)).isFalse();
        assertThat(st.accept(7, badExt, 0, badExt.length, 0)).isFalse();
    }
}
