package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReorderBufferTest {
    private final List<Integer> out = new ArrayList<>();
    private final ReorderBuffer.Out sink = (b, len) -> out.add(RtpPacket.sequence(b, 0));

    private static byte[] rtp(int seq) {
        byte[] b = new byte[20];
        b[0] = (byte) 0x80;
        b[1] = 96;
        RtpPacket.setSequence(b, 0, seq & 0xFFFF);
        return b;
    }

    private void push(ReorderBuffer r, int seq, long now) {
        r.push(rtp(seq), 20, now, sink);
    }

    @Test
    void inOrderPassesStraightThroughAndReorderedPacketsComeOutSorted() {
        ReorderBuffer r = new ReorderBuffer(64, 100);
        push(r, 65534, 0);
        push(r, 65535, 0);
        push(r, 1, 0); // ahead of a hole (0): held
        assertThat(out).containsExactly(65534, 65535);
        push(r, 2, 0);
        push(r, 0, 0); // the hole fills: everything follows in order across the wrap
        assertThat(out).containsExactly(65534, 65535, 0, 1, 2);
        push(r, 0, 0); // too late (already emitted)
        assertThat(r.late()).isEqualTo(1);
        assertThat(r.skipped()).isZero();
    }

    @Test
    void aHoleIsGivenUpAfterTheWaitAndAtFlush() {
        ReorderBuffer r = new ReorderBuffer(64, 100);
        push(r, 10, 0);
        push(r, 12, 0);
        r.tick(50, sink);
        assertThat(out).containsExactly(10);
        r.tick(101, sink);
        assertThat(out).containsExactly(10, 12);
        assertThat(r.skipped()).isEqualTo(1);
        push(r, 11, 200); // its hole was given up
        assertThat(r.late()).isEqualTo(1);
        push(r, 15, 200);
        r.flush(sink);
        assertThat(out).containsExactly(10, 12, 15);
    }

    @Test
    void farAheadPacketsNeverOverflowTheSlots() {
        ReorderBuffer r = new ReorderBuffer(8, 1_000_000);
        push(r, 100, 0);
        for (int s = 102; s < 120; s++) {
            push(r, s, 0);
        }
        r.flush(sink);
        assertThat(out).startsWith(100).hasSize(19).isSorted();
    }
}
