package dev.parley.recorder.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Every video packet's presentation time of WebM segments played back to back (ffmpeg concat + ffprobe). */
public final class VideoPts {
    private VideoPts() {
    }

    public static List<Double> ofConcatenated(List<Path> segments, Path workDir) throws IOException, InterruptedException {
        StringBuilder list = new StringBuilder("ffconcat version 1.0\n");
        segments.forEach(f -> list.append("file '").append(f).append("'\n"));
        Path listFile = workDir.resolve("list.txt");
        Files.writeString(listFile, list);
        Path all = workDir.resolve("all.webm");
        Process p = new ProcessBuilder("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0",
                "-i", listFile.toString(), "-c", "copy", all.toString()).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException("ffmpeg concat failed");
        }
        Process probe = new ProcessBuilder("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                "packet=pts_time", "-of", "csv=p=0", all.toString()).start();
        List<Double> pts = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(l -> !l.isBlank()).map(l -> Double.parseDouble(l.trim().replace(",", ""))).sorted().toList();
        if (probe.waitFor() != 0) {
            throw new IOException("ffprobe failed");
        }
        return pts;
    }
}
