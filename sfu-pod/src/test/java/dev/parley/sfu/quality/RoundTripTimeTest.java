package dev.parley.sfu.quality;

import dev.parley.media.rtcp.Rtcp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** RTT from synthetic sender/receiver report timing (RFC 3550 §6.4.1), as the SFU sees it toward a subscriber. */
class RoundTripTimeTest {
    private static final long MS = 1_000_000L;
    private static final int SLOT = 0x1234_5678, OTHER = 0x0BAD_F00D;

    private final RoundTripTime rtt = new RoundTripTime();

    /** NTP timestamp whose middle 32 bits are {@code middle}. */
    private static long ntp(long middle) { return middle << 16; }

    /** DLSR in 1/65536 s for {@code ms}. */
    private static long dlsr(long ms) { return ms * 65536 / 1000; }

    @Test
    void roundTripIsArrivalMinusSendMinusTheReceiversHoldTime() {
        long t0 = 5_000 * MS;
        rtt.onSenderReportSent(SLOT, ntp(0x1111_2222L), t0);
        // the receiver held our SR for 400 ms; its report arrives 460 ms after we sent: 60 ms round trip
        int sample = rtt.onReportBlock(SLOT, 0x1111_2222L, dlsr(400), t0 + 460 * MS);
        assertThat(sample).isEqualTo(60);
        assertThat(rtt.rttMs()).isEqualTo(60);
    }

    @Test
    void samplesAreSmoothedSoOneLateReportMovesItByAnEighth() {
        long t = 1_000 * MS;
        for (int i = 0; i < 20; i++) {
            long mid = 0x2000_0000L + i * 65536;
            rtt.onSenderReportSent(SLOT, ntp(mid), t);
            assertThat(rtt.onReportBlock(SLOT, mid, dlsr(200), t + 240 * MS)).isEqualTo(40);
            t += 1_000 * MS;
        }
        assertThat(rtt.rttMs()).isEqualTo(40);
        rtt.onSenderReportSent(SLOT, ntp(0x3000_0000L), t);
        assertThat(rtt.onReportBlock(SLOT, 0x3000_0000L, dlsr(200), t + 600 * MS)).isEqualTo(400);
        assertThat(rtt.rttMs()).isEqualTo(85);                          // 40 + (400 - 40) / 8
        assertThat(rtt.lastSampleMs()).isEqualTo(400);
        // a lasting change shows within a few reports
        for (int i = 0; i < 30; i++) {
            long mid = 0x4000_0000L + i * 65536;
            rtt.onSenderReportSent(SLOT, ntp(mid), t);
            rtt.onReportBlock(SLOT, mid, dlsr(100), t + 250 * MS);
            t += 1_000 * MS;
        }
        assertThat(rtt.rttMs()).isBetween(149, 151);
    }

    @Test
    void echoesWeCannotMatchGiveNoSample() {
        long t0 = 9_000 * MS;
        rtt.onSenderReportSent(SLOT, ntp(0x5555_0000L), t0);
        assertThat(rtt.onReportBlock(SLOT, 0, 0, t0 + 10 * MS)).as("LSR 0: no SR received yet").isEqualTo(-1);
        assertThat(rtt.onReportBlock(SLOT, 0x5555_0001L, 0, t0 + 10 * MS)).as("an LSR we never sent").isEqualTo(-1);
        assertThat(rtt.onReportBlock(OTHER, 0x5555_0000L, 0, t0 + 10 * MS)).as("another SSRC's report").isEqualTo(-1);
        assertThat(rtt.onReportBlock(SLOT, 0x5555_0000L, dlsr(500), t0 + 100 * MS)).as("held longer than the trip").isEqualTo(-1);
        assertThat(rtt.onReportBlock(SLOT, 0x5555_0000L, 0, t0 + 11_000 * MS)).as("stale").isEqualTo(-1);
        assertThat(rtt.rttMs()).isEqualTo(-1);
        assertThat(rtt.samples()).isZero();
    }

    @Test
    void anOlderSenderReportStillInTheHistoryMatches() {
        long t = 0;
        for (int i = 0; i < 10; i++) {                                   // ten slots' SRs in one round
            rtt.onSenderReportSent(SLOT + i, ntp(0x7000_0000L + i), t + i * MS);
        }
        assertThat(rtt.onReportBlock(SLOT, 0x7000_0000L, dlsr(10), t + 30 * MS)).isEqualTo(20);
        for (int i = 0; i < RoundTripTime.HISTORY; i++) rtt.onSenderReportSent(OTHER, ntp(0x7100_0000L + i), t + 40 * MS);
        assertThat(rtt.onReportBlock(SLOT + 1, 0x7000_0001L, 0, t + 50 * MS)).as("pushed out of the history").isEqualTo(-1);
    }

    @Test
    void reportBlocksAreReadFromRealRtcpPacketsAndTruncatedOnesAreNotOverread() {
        long t0 = 3_000 * MS;
        rtt.onSenderReportSent(SLOT, ntp(0x6000_1000L), t0);
        byte[] b = new byte[64];
        int n = Rtcp.writeReceiverReport(b, 0, 0x0C0FFEE, SLOT, 0, 0, 100, 0, 0x6000_1000L, dlsr(30));
        assertThat(n).isEqualTo(32);
        assertThat(rtt.onReportPacket(b, 0, n, t0 + 55 * MS)).isEqualTo(1);
        assertThat(rtt.rttMs()).isEqualTo(25);
        // the count says 31 blocks, the length holds one: one is read
        b[0] = (byte) (0x80 | 31);
        assertThat(rtt.onReportPacket(b, 0, n, t0 + 55 * MS)).isEqualTo(1);
        assertThat(rtt.onReportPacket(b, 0, 8, t0 + 55 * MS)).isZero();
        b[1] = (byte) 206;                                               // not a report
        assertThat(rtt.onReportPacket(b, 0, n, t0 + 55 * MS)).isZero();
    }

    @Test
    void resetForgetsEverything() {
        rtt.onSenderReportSent(SLOT, ntp(0x1000L), 0);
        rtt.onReportBlock(SLOT, 0x1000L, 0, 5 * MS);
        assertThat(rtt.rttMs()).isEqualTo(5);
        rtt.reset();
        assertThat(rtt.rttMs()).isEqualTo(-1);
        assertThat(rtt.onReportBlock(SLOT, 0x1000L, 0, 6 * MS)).isEqualTo(-1);
    }
}
