package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.rtp.RtpPacket;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * VP8 temporal-layer dropping on synthetic L1T3 streams (TIDs 0,2,1,2 as libwebrtc sends them): what is
 * dropped, where the layer changes, and that the receiver's sequence numbers, picture ids and TL0PICIDX stay
 * dense — across drops, 16-bit / 15-bit wraps, reordering and layer switches.
 */
class TemporalFilterTest {
    private static final int[] L1T3 = {0, 2, 1, 2};
    private static final int PACKETS_PER_PICTURE = 2;

    /** One synthetic packet: its input numbers and VP8 descriptor fields. */
    private record In(int seq, int pid, int tl0, int tid, boolean sync, boolean keyframe, boolean first) {}

    /** What the receiver gets: the rewritten numbers (as Router.forward computes them). */
    private record Out(int seq, int pid, int tl0, int tid) {}

    /** A publisher's stream: {@code pictures} pictures from the given start numbers, TL1 sync only after a keyframe. */
    private static List<In> stream(int seq, int pid, int tl0, int pictures, int keyframeAt) {
        List<In> r = new ArrayList<>();
        boolean sinceKeyframe = false;
        for (int p = 0; p < pictures; p++) {
            int tid = L1T3[p % 4];
            boolean key = p == keyframeAt;
            if (key) sinceKeyframe = true;
            if (tid == 0 && p > 0) tl0 = (tl0 + 1) & 0xFF;
            // libwebrtc: every cycle's first TL2 references TL0 only (sync); TL1 only right after a keyframe
            boolean sync = tid == 2 && p % 4 == 1 || tid == 1 && sinceKeyframe && p - keyframeAt < 4;
            for (int k = 0; k < PACKETS_PER_PICTURE; k++) {
                r.add(new In(seq, pid, tl0, tid, sync, key && k == 0, k == 0));
                seq = (seq + 1) & 0xFFFF;
            }
            pid = (pid + 1) & 0x7FFF;
        }
        return r;
    }

    private final byte[] buf = new byte[32];
    private final Vp8Descriptor d = new Vp8Descriptor();

    /** Writes {@code in} as a real VP8 payload descriptor and parses it, as the router does. */
    private Vp8Descriptor parse(In in) {
        buf[0] = (byte) (0x80 | (in.first ? 0x10 : 0));                 // X, S on a picture's first packet, PID 0
        buf[1] = (byte) 0xE0;                                            // I L T
        buf[2] = (byte) (0x80 | (in.pid >>> 8));
        buf[3] = (byte) in.pid;
        buf[4] = (byte) in.tl0;
        buf[5] = (byte) ((in.tid << 6) | (in.sync ? 0x20 : 0));
        buf[6] = (byte) (in.keyframe ? 0x00 : 0x01);                     // VP8 header P bit
        assertThat(d.parse(buf, 0, 10)).isTrue();
        return d;
    }

    /** Runs a packet through the filter with fixed base offsets (no spatial switch); null = dropped; tid -1 = padding fill. */
    private Out admit(TemporalFilter f, In in) {
        Vp8Descriptor v = parse(in);
        int fate = f.admit(in.seq, v, v.keyframe);
        if (fate == TemporalFilter.DROP) return null;
        if (fate == TemporalFilter.FILL) return new Out((in.seq - f.seqShift) & 0xFFFF, -1, -1, -1);
        return new Out((in.seq - f.seqShift) & 0xFFFF, (in.pid - f.pidShift) & 0x7FFF, in.tl0, in.tid);
    }

    private List<Out> run(TemporalFilter f, List<In> packets) {
        List<Out> r = new ArrayList<>();
        for (In in : packets) {
            Out o = admit(f, in);
            if (o != null) r.add(o);
        }
        return r;
    }

    /**
     * Consecutive sequence numbers (padding fills included); among media packets picture ids +0 within a picture,
     * +1 between; TL0PICIDX +1 per TL0 picture.
     */
    private static void assertDense(List<Out> out) {
        for (int i = 1; i < out.size(); i++) {
            assertThat((out.get(i).seq - out.get(i - 1).seq) & 0xFFFF).as("seq after %s", out.get(i - 1)).isEqualTo(1);
        }
        List<Out> media = out.stream().filter(o -> o.tid >= 0).toList();
        for (int i = 1; i < media.size(); i++) {
            Out a = media.get(i - 1), b = media.get(i);
            int dp = (b.pid - a.pid) & 0x7FFF;
            assertThat(dp).as("picture id after %s", a).isBetween(0, 1);
            int dt = (b.tl0 - a.tl0) & 0xFF;
            assertThat(dt).as("tl0picidx after %s", a).isEqualTo(b.tid == 0 && dp == 1 ? 1 : 0);
        }
    }

    @Test
    void allLayersByDefaultNumbersUntouched() {
        TemporalFilter f = new TemporalFilter();
        List<In> in = stream(100, 500, 7, 40, 0);
        List<Out> out = run(f, in);
        assertThat(out).hasSize(in.size());
        for (int i = 0; i < in.size(); i++) assertThat(out.get(i).seq).isEqualTo(in.get(i).seq);
        assertDense(out);
    }

    @Test
    void targetT0ForwardsOnlyTheBaseLayerWithDenseNumbers() {
        TemporalFilter f = new TemporalFilter();
        List<In> in = stream(65_000, 32_700, 250, 400, 0);               // wraps seq, picture id and TL0PICIDX
        List<Out> out = new ArrayList<>(run(f, in.subList(0, 16)));
        f.target = 0;
        out.addAll(run(f, in.subList(16, in.size())));
        assertDense(out);
        assertThat(out.subList(16, out.size())).allMatch(o -> o.tid == 0);
        // a quarter of the pictures (TL0 of L1T3) are left after the switch: 7.5 of 30 fps
        assertThat(out.size() - 16).isEqualTo((in.size() - 16) / 4);
        assertThat(f.droppedPictures).isEqualTo((in.size() - 16) / PACKETS_PER_PICTURE * 3 / 4);
        assertThat(f.current).isZero();
    }

    @Test
    void targetT1DropsOnlyTl2() {
        TemporalFilter f = new TemporalFilter();
        f.target = 1;
        List<Out> out = run(f, stream(1, 1, 0, 100, -1));
        assertDense(out);
        assertThat(out).allMatch(o -> o.tid <= 1).hasSize(100);          // 50 pictures × 2 packets
    }

    @Test
    void stepUpWaitsForLayerSyncOrKeyframe() {
        TemporalFilter f = new TemporalFilter();
        f.target = 0;
        List<In> in = stream(10, 10, 0, 200, 120);                       // keyframe at picture 120
        List<Out> out = new ArrayList<>(run(f, in.subList(0, 40)));
        f.target = 2;
        // TL1 has no sync picture before the keyframe; TL2's syncs must not be taken from T0 (they skip TL1)
        out.addAll(run(f, in.subList(40, 240)));
        assertThat(f.current).isZero();
        assertThat(f.upswitchStalled(0, 2, 1_000_000_000L)).isFalse();
        assertThat(f.upswitchStalled(500_000_000L, 2, 1_000_000_000L)).isFalse();
        assertThat(f.upswitchStalled(1_000_000_000L, 2, 1_000_000_000L)).as("ask for a keyframe").isTrue();
        assertThat(f.upswitchStalled(1_100_000_000L, 2, 1_000_000_000L)).as("at most once per interval").isFalse();
        assertThat(f.upswitchStalled(1_200_000_000L, 0, 1_000_000_000L)).as("the stream has no higher layer").isFalse();
        assertThat(f.upswitchStalled(1_300_000_000L, 2, 1_000_000_000L)).as("starts waiting over").isFalse();
        out.addAll(run(f, in.subList(240, in.size())));
        assertThat(f.current).as("keyframe: every layer").isEqualTo(2);
        assertThat(f.upswitchStalled(3_000_000_000L, 2, 1_000_000_000L)).isFalse();
        assertDense(out);
        assertThat(out.get(out.size() - 1).seq).isEqualTo((10 + 40 / 4 + 200 / 4 + (in.size() - 240) - 1) & 0xFFFF);

        // one layer at a time at sync pictures: T0 → T1 at the TL1 sync after the keyframe, then T2 at its sync
        TemporalFilter g = new TemporalFilter();
        g.target = 0;
        List<In> s = stream(10, 10, 0, 24, 8);
        run(g, s.subList(0, 18));                                        // up to and including the keyframe
        g.target = 1;
        assertThat(g.current).isZero();
        run(g, s.subList(18, 22));                                       // TL2 sync (dropped: above target), TL1 sync
        assertThat(g.current).isEqualTo(1);
        g.target = 2;
        run(g, s.subList(22, s.size()));
        assertThat(g.current).isEqualTo(2);
    }

    /** Admits packets of {@code in} in the given order; returns the receiver's packets sorted by sequence number. */
    private List<Out> reordered(TemporalFilter f, List<In> in, int[] order) {
        List<Out> out = new ArrayList<>();
        for (int i : order) {
            Out o = admit(f, in.get(i));
            if (o != null) out.add(o);
        }
        int base = out.get(0).seq;
        out.sort((a, b) -> Integer.compare((a.seq - base) & 0xFFFF, (b.seq - base) & 0xFFFF));
        return out;
    }

    @Test
    void reorderedAndRepairedPacketsGetTheNumbersOfTheirPlace() {
        TemporalFilter f = new TemporalFilter();
        f.target = 1;
        List<In> in = stream(65_530, 32_766, 3, 12, -1);                // T0 T2 T1 T2 T0 ..., 2 packets each, wraps
        // pictures 2 (T1), 4 (T0) and 7 (T2, dropped) arrive second packet first
        int[] order = {0, 1, 2, 3, 5, 4, 6, 7, 9, 8, 10, 11, 12, 13, 15, 14, 16, 17};
        List<Out> out = reordered(f, in, order);
        assertDense(out);
        // picture 7's late first packet had a number reserved: it becomes a padding fill, not a hole
        assertThat(out).extracting(Out::tid).containsExactly(0, 0, 1, 1, 0, 0, 1, 1, -1, 0, 0);
        // a publisher repair (late duplicate) of a dropped packet is dropped again, of a forwarded one gets its number
        assertThat(admit(f, in.get(2))).isNull();
        assertThat(admit(f, in.get(14))).isNull();
        assertThat(admit(f, in.get(4)).seq).isEqualTo(out.get(2).seq);
    }

    @Test
    void droppedPictureArrivingAfterALaterOneIsFilled() {
        TemporalFilter f = new TemporalFilter();
        f.target = 1;
        List<In> in = stream(100, 100, 3, 8, -1);
        // picture 3 (T2) comes entirely after picture 4: its numbers were reserved when picture 4 passed them
        List<Out> out = reordered(f, in, new int[]{0, 1, 2, 3, 4, 5, 8, 9, 6, 7, 10, 11});
        for (int i = 1; i < out.size(); i++) assertThat((out.get(i).seq - out.get(i - 1).seq) & 0xFFFF).isEqualTo(1);
        assertThat(out).extracting(Out::tid).containsExactly(0, 0, 1, 1, -1, -1, 0, 0);
        // its picture id stays a one-picture gap (like an upstream loss): documented, not hidden
        assertThat(out.get(6).pid - out.get(3).pid).isEqualTo(2);
    }

    @Test
    void lostPacketStaysAHoleButDropsDoNot() {
        TemporalFilter f = new TemporalFilter();
        f.target = 0;
        List<In> in = new ArrayList<>(stream(0, 0, 0, 16, -1));
        In lost = in.remove(8);                                          // first packet of picture 4 (T0)
        List<Out> out = run(f, in);
        assertThat(out).extracting(Out::seq).containsExactly(0, 1, 3, 4, 5, 6, 7);
        assertThat(admit(f, lost).seq).as("the upstream repair fills the hole").isEqualTo(2);
    }

    @Test
    void resetStartsANewNumberSpaceAtTheTarget() {
        TemporalFilter f = new TemporalFilter();
        f.target = 0;
        run(f, stream(0, 0, 0, 16, -1));
        f.target = 1;
        f.reset();                                                       // a spatial switch at a keyframe
        assertThat(f.current).isEqualTo(1);
        List<Out> out = run(f, stream(40_000, 9_000, 77, 16, 0));
        assertThat(out.get(0).seq).isEqualTo(40_000);
        assertDense(out);
        assertThat(out).hasSize(16);
    }

    @Test
    void streamsWithoutTemporalIdsAreNeverDropped() {
        TemporalFilter f = new TemporalFilter();
        f.target = 0;
        byte[] b = {(byte) 0x90, (byte) 0x80, (byte) 0x81, 0x00, 0x01, 0, 0, 0};   // picture id, no T bit
        Vp8Descriptor v = new Vp8Descriptor();
        for (int i = 0; i < 50; i++) {
            b[3] = (byte) i;
            assertThat(v.parse(b, 0, b.length)).isTrue();
            assertThat(f.admit(i, v, false)).isEqualTo(TemporalFilter.FORWARD);
            assertThat(f.seqShift).isZero();
        }
        assertThat(f.admit(50, null, false)).as("H.264: no descriptor").isEqualTo(TemporalFilter.FORWARD);
    }

    @Test
    void admitDoesNotAllocate() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        TemporalFilter f = new TemporalFilter();
        f.target = 1;
        byte[] b = new byte[16];
        Vp8Descriptor v = new Vp8Descriptor();
        long kept = 0;
        for (int round = 0; round < 3; round++) {                        // the first rounds warm up the JIT
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = round * 200_000; i < (round + 1) * 200_000; i++) {   // one continuous stream
                int pid = (i / 2) & 0x7FFF;
                b[0] = (byte) (0x80 | ((i & 1) == 0 ? 0x10 : 0));
                b[1] = (byte) 0xE0;
                b[2] = (byte) (0x80 | (pid >>> 8));
                b[3] = (byte) pid;
                b[4] = (byte) (i / 8);
                b[5] = (byte) (L1T3[(i / 2) & 3] << 6);
                b[6] = 1;
                v.parse(b, 0, 10);
                if (f.admit(i & 0xFFFF, v, false) == TemporalFilter.FORWARD) kept++;
            }
            if (round == 2) assertThat(mx.getCurrentThreadAllocatedBytes() - before).isLessThan(1024);
        }
        assertThat(kept).isEqualTo(3 * 100_000);
        assertThat(RtpPacket.seqDelta(1, 0)).isEqualTo(1);
    }
}
