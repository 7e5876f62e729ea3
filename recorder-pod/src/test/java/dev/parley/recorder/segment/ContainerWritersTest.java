package dev.parley.recorder.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our IVF and Ogg/Opus byte streams, checked by the real ffprobe. */
class ContainerWritersTest {
    @TempDir
    Path tmp;

    @Test
    void oggOpusPagesAreValidAndKeepRtpTiming() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        OggOpusWriter w = new OggOpusWriter(out, 2, 42);
        byte[] silence = {(byte) 0xFC, (byte) 0xFF, (byte) 0xFE}; // CELT 20 ms, stereo, code 0
        for (int i = 0; i < 100; i++) {
            w.writeFrame(silence, 0, silence.length, i * 960L + (i >= 50 ? 48_000 : 0), true); // 1 s gap at 1 s
        }
        w.finish();
        Path f = tmp.resolve("a.ogg");
        Files.write(f, out.toByteArray());
        String probe = probe(f, "stream=codec_name,channels:format=duration");
        assertThat(probe).contains("opus").contains("2");
        double duration = Double.parseDouble(probe.lines().filter(l -> l.contains(".")).findFirst().orElseThrow().trim());
        assertThat(duration).isBetween(2.9, 3.1); // 100 x 20 ms + the 1 s gap
    }

    @Test
    void opusSampleCountFollowsTheTocByte() {
        assertThat(OggOpusWriter.samples(new byte[] {(byte) 0xFC}, 0, 1)).isEqualTo(960); // CELT 20 ms
        assertThat(OggOpusWriter.samples(new byte[] {(byte) 0x19}, 0, 1)).isEqualTo(2 * 2880); // SILK 60 ms, two frames
        assertThat(OggOpusWriter.samples(new byte[] {(byte) 0x03, 3}, 0, 2)).isEqualTo(3 * 480);
        assertThat(OggOpusWriter.samples(new byte[0], 0, 0)).isZero();
    }

    @Test
    void ivfHeaderCarriesSizeAndTimeBase() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        IvfWriter w = new IvfWriter(out, 320, 240);
        w.writeFrame(new byte[] {1, 2, 3}, 0, 3, 0, true);
        w.writeFrame(new byte[] {4, 5}, 0, 2, 6000, false);
        byte[] b = out.toByteArray();
        assertThat(new String(b, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("DKIF");
        assertThat(new String(b, 8, 4, StandardCharsets.US_ASCII)).isEqualTo("VP80");
        assertThat((b[12] & 0xFF) | (b[13] & 0xFF) << 8).isEqualTo(320);
        assertThat((b[16] & 0xFF) | (b[17] & 0xFF) << 8 | (b[18] & 0xFF) << 16).isEqualTo(90_000);
        assertThat(b).hasSize(32 + 12 + 3 + 12 + 2);
        assertThat(b[32 + 12 + 3 + 4] & 0xFF | (b[32 + 12 + 3 + 5] & 0xFF) << 8).isEqualTo(6000);
    }

    private static String probe(Path f, String entries) throws Exception {
        Process p = new ProcessBuilder("ffprobe", "-v", "error", "-show_entries", entries, "-of", "default=nw=1:nk=1",
                f.toString()).redirectErrorStream(true).start();
        String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(s).isZero();
        return s;
    }
}
