package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp9Descriptor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * VP9 SVC layer filtering on synthetic L3T3_KEY streams (three spatial layers per picture, TIDs 0,2,1,2 as
 * libwebrtc sends them, two packets per layer frame, real RFC 9628 descriptors): what is dropped, where the
 * layers change, that the marker bit ends every picture as forwarded and that sequence numbers stay dense.
 */
class SvcFilterTest {
    private static final int[] TIDS = {0, 2, 1, 2};
    private static final int SPATIAL = 3, PACKETS_PER_FRAME = 2;

    /** One packet as the publisher sends it. */
    private record In(int seq, int pid, int sid, int tid, boolean key, boolean begin, boolean end, boolean marker) {}

    /** What the receiver gets (as Router.forward computes it), or a padding fill. */
    private record Out(int seq, int pid, int sid, int tid, boolean marker, boolean fill) {}

    /** {@code pictures} pictures from {@code seq}; keyframes at the given picture indices. */
    private static List<In> stream(int seq, int pid, int pictures, int... keyframes) {
        List<In> r = new ArrayList<>();
        for (int p = 0; p < pictures; p++) {
            boolean key = false;
            for (int k : keyframes) key |= k == p;
            int tid = key ? 0 : TIDS[p % 4];
            for (int s = 0; s < SPATIAL; s++) {
                for (int k = 0; k < PACKETS_PER_FRAME; k++) {
                    boolean end = k == PACKETS_PER_FRAME - 1;
                    r.add(new In(seq, pid, s, tid, key, k == 0, end, end && s == SPATIAL - 1));
                    seq = (seq + 1) & 0xFFFF;
                }
            }
            pid = (pid + 1) & 0x7FFF;
        }
        return r;
    }

    private final byte[] buf = new byte[16];
    private final Vp9Descriptor d = new Vp9Descriptor();
    private final SvcFilter f = new SvcFilter();

    /** Writes {@code in} as a non-flexible VP9 descriptor (I, L, TL0PICIDX) and parses it, as the router does. */
    private Vp9Descriptor parse(In in) {
        boolean predicted = !in.key;                                   // k-SVC: a keyframe's layers reference no earlier picture
        buf[0] = (byte) (0x80 | (predicted ? 0x40 : 0) | 0x20 | (in.begin ? 0x08 : 0) | (in.end ? 0x04 : 0));
        buf[1] = (byte) (0x80 | (in.pid >>> 8));
        buf[2] = (byte) in.pid;
        buf[3] = (byte) ((in.tid << 5) | (in.tid > 0 ? 0x10 : 0) | (in.sid << 1) | (in.key && in.sid > 0 ? 1 : 0));
        buf[4] = 7;
        buf[5] = 0x11;
        assertThat(d.parse(buf, 0, 6)).isTrue();
        return d;
    }

    private Out admit(In in) {
        Vp9Descriptor v = parse(in);
        int fate = f.admit(in.seq, v, v.keyframe());
        if (fate == SvcFilter.DROP) return null;
        int out = (in.seq - f.seqShift) & 0xFFFF;
        return new Out(out, in.pid, in.sid, in.tid, fate == SvcFilter.FORWARD && (in.marker || f.marker), fate == SvcFilter.FILL);
    }

    private List<Out> run(List<In> in) {
        List<Out> r = new ArrayList<>();
        for (In i : in) { Out o = admit(i); if (o != null) r.add(o); }
        return r;
    }

    private static void assertDense(List<Out> out) {
        for (int i = 1; i < out.size(); i++) assertThat(out.get(i).seq()).isEqualTo((out.get(i - 1).seq() + 1) & 0xFFFF);
    }

    /** Exactly one marker per picture forwarded, on its last packet. */
    private static void assertOneMarkerPerPicture(List<Out> out) {
        for (int i = 0; i < out.size(); i++) {
            boolean last = i == out.size() - 1 || out.get(i + 1).pid() != out.get(i).pid();
            assertThat(out.get(i).marker()).as("packet %d (pid %d sid %d)", i, out.get(i).pid(), out.get(i).sid()).isEqualTo(last);
        }
    }

    @Test
    void everyLayerPassesUntouched() {
        List<In> in = stream(65530, 100, 8, 0);
        f.reset();
        List<Out> out = run(in);
        assertThat(out).hasSize(in.size());
        for (int i = 0; i < in.size(); i++) {
            assertThat(out.get(i).seq()).isEqualTo(in.get(i).seq());
            assertThat(out.get(i).marker()).isEqualTo(in.get(i).marker());
        }
        assertThat(f.droppedPackets()).isZero();
    }

    @Test
    void lowerSpatialLayerGetsMarkerAndDenseSequenceAcrossTheWrap() {
        f.targetSpatial = 1;
        f.reset();
        List<Out> out = run(stream(65500, 32760, 12, 0));      // 16-bit sequence and 15-bit picture id wrap inside
        assertThat(out).hasSize(12 * 2 * PACKETS_PER_FRAME).allMatch(o -> o.sid() <= 1 && !o.fill());
        assertDense(out);
        assertOneMarkerPerPicture(out);
        assertThat(out).filteredOn(Out::marker).allMatch(o -> o.sid() == 1);
        assertThat(f.droppedPackets()).isEqualTo(12 * PACKETS_PER_FRAME);
    }

    @Test
    void downSwitchWaitsForTheNextPictureUpSwitchForAKeyframe() {
        List<In> in = stream(1000, 5, 12, 0, 8);
        f.reset();
        List<Out> out = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < in.size(); i++) {
            if (i == 3) f.targetSpatial = 0;                    // mid picture 0: that picture still completes
            if (i == 4 * SPATIAL * PACKETS_PER_FRAME) {          // picture 4: the tile grew again
                f.targetSpatial = 2;
                assertThat(f.spatialUpWanted(now, 2, 1_000_000_000L)).isTrue();    // ask for a keyframe at once
                assertThat(f.spatialUpWanted(now + 1, 2, 1_000_000_000L)).isFalse();   // not again right away
                assertThat(f.spatialUpWanted(now + 1_000_000_001L, 2, 1_000_000_000L)).isTrue();
            }
            Out o = admit(in.get(i));
            if (o != null) out.add(o);
        }
        assertDense(out);
        assertOneMarkerPerPicture(out);
        assertThat(out).filteredOn(o -> o.pid() == 5).hasSize(SPATIAL * PACKETS_PER_FRAME);           // picture 0 whole
        for (int pid = 6; pid < 13; pid++) {                                                       // 1..7: base layer only
            int p = pid;
            assertThat(out).filteredOn(o -> o.pid() == p).hasSize(PACKETS_PER_FRAME).allMatch(o -> o.sid() == 0);
        }
        for (int pid = 13; pid < 17; pid++) {                                                      // keyframe 8 on: all
            int p = pid;
            assertThat(out).filteredOn(o -> o.pid() == p).hasSize(SPATIAL * PACKETS_PER_FRAME);
        }
        assertThat(f.currentSpatial).isEqualTo(2);
        assertThat(f.spatialUpWanted(now + 5_000_000_000L, 2, 1_000_000_000L)).isFalse();
        assertThat(f.spatialSwitches).isEqualTo(2);
    }

    @Test
    void temporalTargetDropsWholePicturesAndClimbsAtSwitchingUpPoints() {
        f.targetSpatial = 2;
        f.targetTemporal = 0;
        f.reset();
        List<In> in = stream(200, 0, 16, 0);
        List<Out> out = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            if (i == 8 * SPATIAL * PACKETS_PER_FRAME) f.targetTemporal = 2;   // at picture 8 (TID 0): wants all
            Out o = admit(in.get(i));
            if (o != null) out.add(o);
        }
        assertDense(out);
        assertOneMarkerPerPicture(out);
        // pictures 0..8 at TID 0 only; 9 is TID 2 (current 0: needs TID 1 first), 10 is TID 1 with U: up to 1;
        // 11 is TID 2 with U: up to 2
        assertThat(out).filteredOn(o -> o.pid() < 9).allMatch(o -> o.tid() == 0);
        assertThat(out).filteredOn(o -> o.pid() == 9).isEmpty();
        assertThat(out).filteredOn(o -> o.pid() == 10).hasSize(SPATIAL * PACKETS_PER_FRAME);
        assertThat(out).filteredOn(o -> o.pid() == 11).hasSize(SPATIAL * PACKETS_PER_FRAME);
        assertThat(f.currentTemporal).isEqualTo(2);
    }

    @Test
    void latePacketsKeepTheirReservedNumbersOrBecomeFills() {
        f.targetSpatial = 0;
        f.reset();
        List<In> in = stream(500, 0, 4, 0);
        int perPicture = SPATIAL * PACKETS_PER_FRAME;
        In lateBase = in.get(perPicture + 1);          // picture 1, SID 0, second packet: forwarded, arrives late
        In lateUpper = in.get(perPicture + 2);         // picture 1, SID 1: dropped layer, arrives late
        List<Out> out = new ArrayList<>();
        for (In i : in) if (i != lateBase && i != lateUpper) { Out o = admit(i); if (o != null) out.add(o); }
        Out base = admit(lateBase), upper = admit(lateUpper);
        assertThat(base).isNotNull();
        assertThat(base.fill()).isFalse();
        assertThat(base.marker()).isTrue();             // it ends picture 1 as forwarded
        assertThat(upper).isNotNull();
        assertThat(upper.fill()).isTrue();              // its number was reserved: the receiver gets padding there
        out.add(base);
        out.add(upper);
        out.sort((a, b) -> Integer.compare(a.seq(), b.seq()));
        assertDense(out);
        assertThat(out.stream().map(Out::seq).distinct().count()).isEqualTo(out.size());
        // a duplicate of a dropped packet is dropped, never a second fill
        assertThat(admit(lateUpper)).isNull();
    }
}
