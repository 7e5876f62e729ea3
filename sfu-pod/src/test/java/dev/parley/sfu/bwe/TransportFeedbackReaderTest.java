package dev.parley.sfu.bwe;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class TransportFeedbackReaderTest {

    /** Records what the reader reported. */
    private static final class Recorder implements FeedbackSink {
        final List<String> entries = new ArrayList<>();
        int starts;
        int ends;

        @Override
        public void onFeedbackStart(long nowMicros) {
            starts++;
        }

        @Override
        public void onPacketFeedback(int seq, boolean received, long arrival) {
            entries.add(received ? seq + "@" + arrival : seq + "-");
        }

        @Override
        public long onFeedbackEnd(long nowMicros) {
            ends++;
            return 0;
        }
    }

    @Test
    void roundTripsLossSmallLargeAndNegativeDeltas() {
        long base = 10 * 64_000; // reference time 10
        long[] arrivals = {base + 1_000, -1, base + 2_000, base + 80_000, base + 79_000, -1, -1, base + 79_250, base + 90_000};
        byte[] buf = new byte[200];
        int len = TransportFeedbackWriter.write(buf, 0, 1, 2, 65_534, arrivals, arrivals.length, 3);
        assertThat(len % 4).isZero();
        Recorder r = new Recorder();
        assertThat(new TransportFeedbackReader().read(buf, 0, len, r, 0)).isEqualTo(9);
        assertThat(r.entries).containsExactly("65534@" + (base + 1_000), "65535-", "0@" + (base + 2_000),
                "1@" + (base + 80_000), "2@" + (base + 79_000), "3-", "4-", "5@" + (base + 79_250),
                "6@" + (base + 90_000));
        assertThat(r.starts).isEqualTo(1);
        assertThat(r.ends).isEqualTo(1);
    }

    @Test
    void readsRunLengthAndOneBitVectorChunks() {
        // base 100, 20 packets: run of 5 "small delta", then a 1-bit vector of 14 (alternating), then run of 1 not received
        byte[] b = new byte[64];
        int p = 0;
        b[p++] = (byte) 0x8F;
        b[p++] = (byte) 205;
        p += 2; // length filled below
        p += 8; // SSRCs
        b[p++] = 0;
        b[p++] = 100;  // base seq
        b[p++] = 0;
        b[p++] = 20;   // status count
        b[p++] = 0;
        b[p++] = 0;
        b[p++] = 1;    // reference time 1 (64 ms)
        b[p++] = 0;    // fb count
        b[p++] = (byte) 0x20; // run length chunk: symbol 1, run 5
        b[p++] = 5;
        b[p++] = (byte) 0xAA; // 1-bit vector: 1,0,1,0,...  (0b10_101010_1010101 0)
        b[p++] = (byte) 0xAA;
        b[p++] = 0;           // run length chunk: symbol 0, run 1
        b[p++] = 1;
        for (int i = 0; i < 5 + 7; i++) {
            b[p++] = 4; // each received packet 1 ms after the previous
        }
        while (p % 4 != 0) {
            b[p++] = 0;
        }
        b[2] = 0;
        b[3] = (byte) (p / 4 - 1);
        Recorder r = new Recorder();
        assertThat(new TransportFeedbackReader().read(b, 0, p, r, 0)).isEqualTo(20);
        assertThat(r.entries).hasSize(20);
        assertThat(r.entries.get(0)).isEqualTo("100@65000");
        assertThat(r.entries.get(4)).isEqualTo("104@69000");
        assertThat(r.entries.get(5)).isEqualTo("105@70000"); // vector bit 0 = 1 (bit 13 of 0xAAAA)
        assertThat(r.entries.get(6)).isEqualTo("106-");
        assertThat(r.entries.get(19)).isEqualTo("119-");
    }

    @Test
    void referenceTimeWrapsForward() {
        TransportFeedbackReader reader = new TransportFeedbackReader();
        byte[] buf = new byte[64];
        long unit = 64_000;
        long nearWrap = ((1L << 24) - 1) * unit;
        int len = TransportFeedbackWriter.write(buf, 0, 1, 2, 1, new long[] {nearWrap}, 1, 0);
        Recorder r = new Recorder();
        reader.read(buf, 0, len, r, 0);
        len = TransportFeedbackWriter.write(buf, 0, 1, 2, 2, new long[] {(1L << 24) * unit + 1_000}, 1, 1);
        reader.read(buf, 0, len, r, 0);
        long first = Long.parseLong(r.entries.get(0).split("@")[1]);
        long second = Long.parseLong(r.entries.get(1).split("@")[1]);
        assertThat(second - first).as("continuous across the 24-bit wrap").isEqualTo(65_000);
    }

    @Test
    void truncatedFeedbackIsRejectedWithoutApplyingAnything() {
        long[] arrivals = new long[30];
        for (int i = 0; i < arrivals.length; i++) {
            arrivals[i] = i % 4 == 0 ? -1 : 1_000_000 + i * 300_000L; // large deltas: 2 bytes each
        }
        byte[] buf = new byte[300];
        int len = TransportFeedbackWriter.write(buf, 0, 1, 2, 7, arrivals, arrivals.length, 0);
        TransportFeedbackReader reader = new TransportFeedbackReader();
        for (int cut = 0; cut < len - 3; cut++) {
            Recorder r = new Recorder();
            assertThat(reader.read(buf, 0, cut, r, 0)).as("cut at " + cut).isEqualTo(-1);
            assertThat(r.entries).isEmpty();
            assertThat(r.starts).isZero();
        }
        assertThat(reader.malformed()).isEqualTo(len - 3);
    }

    @Test
    void randomBytesNeverThrow() {
        SplittableRandom rnd = new SplittableRandom(5);
        TransportFeedbackReader reader = new TransportFeedbackReader();
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults());
        byte[] buf = new byte[256];
        int accepted = 0;
        for (int i = 0; i < 20_000; i++) {
            for (int j = 0; j < buf.length; j++) {
                buf[j] = (byte) rnd.nextInt(256);
            }
            buf[0] = (byte) 0x8F;
            buf[1] = (byte) 205;
            int len = rnd.nextInt(0, buf.length + 1);
            int off = rnd.nextInt(0, 8);
            if (reader.read(buf, off, Math.min(len, buf.length - off), bwe, i * 50_000L) >= 0) {
                accepted++;
            }
        }
        assertThat(reader.malformed() + accepted).isEqualTo(20_000);
        assertThat(bwe.estimateBps()).isBetween(30_000L, 10_000_000L);
    }
}
