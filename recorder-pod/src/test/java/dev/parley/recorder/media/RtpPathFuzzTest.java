package dev.parley.recorder.media;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Everything a network peer controls on the recorder's packet path (RTP header, VP8 descriptor, Opus
 * payload, leg switching) must be dropped or recorded, never throw. Default run: seed corpus only;
 * JAZZER_FUZZ=1 fuzzes.
 */
class RtpPathFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void packetPathNeverThrows(FuzzedDataProvider data) {
        RtpStitcher stitcher = new RtpStitcher(0x1234, 90_000);
        stitcher.addLeg();
        stitcher.addLeg();
        Vp8Depacketizer vp8 = new Vp8Depacketizer();
        OpusDepacketizer opus = new OpusDepacketizer();
        long[] frames = new long[1];
        Depacketizer.FrameSink sink = (b, off, len, ts, key) -> {
            assertThat(off).isBetween(0, b.length);
            assertThat(len).isBetween(0, b.length - off);
            frames[0]++;
        };
        long now = 0;
        while (data.remainingBytes() > 2) {
            int leg = data.consumeInt(0, 2);
            if (data.consumeBoolean()) {
                stitcher.closeLeg(Math.min(leg, 1));
            }
            byte[] pkt = data.consumeBytes(data.consumeInt(0, 1500));
            now += data.consumeInt(0, 50_000_000);
            if (stitcher.accept(leg, pkt, 0, pkt.length, now)) {
                vp8.push(pkt, 0, pkt.length, sink);
                opus.push(pkt, 0, pkt.length, sink);
            }
        }
        assertThat(frames[0]).isGreaterThanOrEqualTo(0);
    }
}
