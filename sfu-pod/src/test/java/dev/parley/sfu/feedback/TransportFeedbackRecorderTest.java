package dev.parley.sfu.feedback;

import dev.parley.sfu.bwe.FeedbackSink;
import dev.parley.sfu.bwe.TransportFeedbackReader;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TransportFeedbackRecorderTest {
    /** What a publisher's estimator would read back from our feedback. */
    private static final class Collected implements FeedbackSink {
        final List<long[]> entries = new ArrayList<>();   // seq, received, arrival
        @Override public void onFeedbackStart(long nowMicros) { }
        @Override public void onPacketFeedback(int seq, boolean received, long arrival) {
            entries.add(new long[]{seq, received ? 1 : 0, arrival});
        }
        @Override public long onFeedbackEnd(long nowMicros) { return 0; }
    }

    private static Collected readAll(TransportFeedbackRecorder r) {
        Collected c = new Collected();
        TransportFeedbackReader reader = new TransportFeedbackReader();
        byte[] b = new byte[1500];
        int n;
        while ((n = r.write(b, 0, 11, 22)) > 0) assertThat(reader.read(b, 0, n, c, 0)).isPositive();
        return c;
    }

    @Test
    void reportsArrivalsAndLossesAcrossTheWrap() {
        TransportFeedbackRecorder r = new TransportFeedbackRecorder(1_000_000);
        r.onPacket(65534, 1_000_000);
        r.onPacket(65535, 1_001_000);
        r.onPacket(1, 1_005_000);                      // 0 lost
        r.onPacket(2, 1_004_000);                      // arrival order isn't sequence order: negative delta
        Collected c = readAll(r);
        assertThat(c.entries).extracting(e -> e[0]).containsExactly(65534L, 65535L, 0L, 1L, 2L);
        assertThat(c.entries).extracting(e -> e[1]).containsExactly(1L, 1L, 0L, 1L, 1L);
        long t0 = c.entries.get(0)[2];
        assertThat(c.entries.get(1)[2] - t0).isEqualTo(1000);
        assertThat(c.entries.get(3)[2] - t0).isEqualTo(5000);
        assertThat(c.entries.get(4)[2] - t0).isEqualTo(4000);
        assertThat(r.pending()).isFalse();
        assertThat(r.write(new byte[1500], 0, 1, 2)).isZero();
    }

    @Test
    void lateAndDuplicatePacketsAreNotReportedTwiceAndLongRangesSplit() {
        TransportFeedbackRecorder r = new TransportFeedbackRecorder(0);
        for (int s = 100; s < 100 + 600; s++) r.onPacket(s, s * 100L);
        Collected c = readAll(r);
        assertThat(c.entries).hasSize(600);
        assertThat(c.entries).allMatch(e -> e[1] == 1);
        r.onPacket(150, 99_999);                       // long reported: ignored
        assertThat(r.pending()).isFalse();
        r.onPacket(700, 70_000);
        assertThat(readAll(r).entries).extracting(e -> e[0]).containsExactly(700L);
    }

    @Test
    void aJumpBeyondTheRingStartsAFreshRange() {
        TransportFeedbackRecorder r = new TransportFeedbackRecorder(0);
        r.onPacket(10, 1000);
        r.onPacket(10 + TransportFeedbackRecorder.RING + 5, 2000);
        Collected c = readAll(r);
        assertThat(c.entries).extracting(e -> e[0]).containsExactly((long) (10 + TransportFeedbackRecorder.RING + 5));
    }
}
