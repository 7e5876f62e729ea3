package dev.parley.sfu.routing;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** RFC 3550 A.3 / A.8 statistics the SFU reports to publishers in its receiver reports. */
class ReceiveStatisticsTest {
    private static Layer layer() {
        Meeting m = new Meeting("m");
        return new PublishedTrack(new Participant("pub", m), "1", true, "VP8", 96, 97, 90000, List.of(), 0).layers[0];
    }

    private static void receive(Layer l, int seq, long ts, long arrivalNanos) { l.onPacket(seq, ts, arrivalNanos); }

    @Test
    void fractionAndCumulativeLossAcrossTheWrap() {
        Layer l = layer();
        long t = 1_000_000_000L;
        // 65530..65535, 0..13 = 20 expected; 5 of them missing
        for (int i = 0; i < 20; i++) {
            if (i % 4 == 1) continue;
            receive(l, (65530 + i) & 0xFFFF, 3000L * i, t + i * 33_333_333L);
        }
        assertThat(l.expected()).isEqualTo(20);
        assertThat(l.cumulativeLost()).isEqualTo(5);
        assertThat(l.extendedHighest()).isEqualTo(65536 + 13);
        assertThat(l.fractionLostSinceLastReport()).isEqualTo(5 * 256 / 20);
        assertThat(l.fractionLostSinceLastReport()).as("nothing new since the last report").isZero();
        // perfectly paced packets (3000 ticks every 33.3 ms at 90 kHz): jitter stays near zero
        assertThat(l.jitter()).isLessThan(5);
        assertThat(l.onPacket(65535, 0, t)).as("late packet: no move").isNegative();
        assertThat(l.onPacket(16, 0, t)).as("gap of two").isEqualTo(3);
    }

    @Test
    void jitterGrowsWithIrregularArrival() {
        Layer l = layer();
        long t = 0;
        for (int i = 0; i < 200; i++) {
            long arrival = t + i * 20_000_000L + (i % 2 == 0 ? 0 : 10_000_000L);   // every other packet 10 ms late
            receive(l, i, 1800L * i, arrival);
        }
        // |D| alternates around 900 ticks (10 ms at 90 kHz): J converges to ~900
        assertThat(l.jitter()).isBetween(800L, 1000L);
    }
}
