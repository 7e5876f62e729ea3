package dev.parley.recorder.segment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs ffmpeg/ffprobe as child processes with a timeout; output goes to a log file, never to a pipe we forget. */
public final class Ffmpeg {
    private final String ffmpeg;
    private final String ffprobe;

    public Ffmpeg(String ffmpeg, String ffprobe) {
        this.ffmpeg = ffmpeg;
        this.ffprobe = ffprobe;
    }

    public String ffmpegPath() {
        return ffmpeg;
    }

    /** Runs ffmpeg with {@code args}; throws with the log tail if it fails. */
    public void run(List<String> args, Path log, long timeoutSeconds) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ffmpeg);
        cmd.addAll(List.of("-hide_banner", "-nostdin", "-loglevel", "error", "-y"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("ffmpeg timed out after " + timeoutSeconds + " s: " + tail(log));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("ffmpeg exited with " + p.exitValue() + ": " + tail(log));
        }
    }

    /** Container duration in seconds. */
    public double duration(Path file) throws IOException {
        String out = probe(file, "format=duration");
        return Double.parseDouble(out.trim().split("\\s+")[0]);
    }

    /** Codec types of the streams, e.g. [video, audio]. */
    public List<String> streamTypes(Path file) throws IOException {
        return List.of(probe(file, "stream=codec_type").trim().split("\\s+"));
    }

    /** "WIDTHxHEIGHT" of the first video stream. */
    public int[] videoSize(Path file) throws IOException {
        String[] wh = probe(file, "stream=width,height").trim().split("[,\\s]+");
        return new int[] {Integer.parseInt(wh[0]), Integer.parseInt(wh[1])};
    }

    private String probe(Path file, String entries) throws IOException {
        Process p = new ProcessBuilder(ffprobe, "-v", "error", "-show_entries", entries, "-of", "csv=p=0",
                file.toString()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("ffprobe failed on " + file + ": " + new String(out, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.length() > 600 ? s.substring(s.length() - 600) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }
}
