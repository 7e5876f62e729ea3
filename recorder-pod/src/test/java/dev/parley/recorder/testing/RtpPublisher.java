package dev.parley.recorder.testing;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A real ffmpeg publishing a VP8 test pattern and an Opus sine as plain RTP to loopback ports, in real time:
 * the stand-in for a meeting participant seen through the SFU in the recorder's own tests.
 */
public final class RtpPublisher implements AutoCloseable {
    private final Process process;

    private RtpPublisher(Process process) {
        this.process = process;
    }

    /** Publishes {@code seconds} of media; video (if videoPort > 0) keyframe every second. */
    public static RtpPublisher start(int videoPort, int audioPort, double seconds, Path log) throws IOException {
        String d = String.format(Locale.ROOT, "%.3f", seconds);
        List<String> cmd = new ArrayList<>(List.of("ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error"));
        if (videoPort > 0) {
            cmd.addAll(List.of("-re", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15:duration=" + d));
        }
        if (audioPort > 0) {
            // libopus's 6.5 ms look-ahead turns N s of input into N s + one 20 ms packet: trim it so the
            // published audio lasts exactly N s like the video
            String ad = String.format(Locale.ROOT, "%.3f", seconds - 0.01);
            cmd.addAll(List.of("-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=" + ad));
        }
        int in = 0;
        if (videoPort > 0) {
            cmd.addAll(List.of("-map", in++ + ":v", "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8",
                    "-b:v", "250k", "-g", "15", "-f", "rtp", "-pkt_size", "1200", "-payload_type", "96", "rtp://127.0.0.1:" + videoPort));
        }
        if (audioPort > 0) {
            cmd.addAll(List.of("-map", in + ":a", "-c:a", "libopus", "-b:a", "32k", "-f", "rtp",
                    "-payload_type", "111", "rtp://127.0.0.1:" + audioPort));
        }
        return new RtpPublisher(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
    }

    public boolean waitFor(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    /** The publisher leaves (the meeting ends). */
    public void stop() {
        process.destroyForcibly();
    }

    @Override
    public void close() {
        stop();
    }

    public static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
