package dev.parley.recorder.segment;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ffmpeg process per track and generation: reads IVF / Ogg from its stdin and cuts WebM segments
 * ({@code -f segment -c copy}), video at the first keyframe after each boundary. Finished segments are
 * read from ffmpeg's live CSV segment list and handed on. Closing stdin is a clean end of stream: the last
 * (short) segment is finalized too.
 */
public final class SegmentMuxer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentMuxer.class);

    private final String trackId;
    private final Path dir;
    private final int segmentSeconds;
    private final String ffmpeg;
    private final Consumer<ClosedSegment> onSegment;
    private final Path list;
    private Process process;
    private OutputStream stdin;
    private Thread watcher;
    private volatile boolean running;
    private long listOffset;
    private final StringBuilder partial = new StringBuilder();
    private volatile SegmentClock clock;
    private long emitted;

    public SegmentMuxer(String trackId, Path dir, int segmentSeconds, String ffmpeg, Consumer<ClosedSegment> onSegment) {
        this.trackId = trackId;
        this.dir = dir;
        this.segmentSeconds = segmentSeconds;
        this.ffmpeg = ffmpeg;
        this.onSegment = onSegment;
        this.list = dir.resolve("segments.csv");
    }

    /** Starts ffmpeg; {@code anchorMs} is the wall clock of pts 0. Returns the stream to write the container to. */
    public OutputStream start(String inputFormat, long anchorMs) throws IOException {
        Files.createDirectories(dir);
        this.clock = new SegmentClock(anchorMs);
        List<String> cmd = new ArrayList<>(List.of(ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "warning",
                "-f", inputFormat, "-i", "pipe:0", "-map", "0", "-c", "copy",
                "-f", "segment", "-segment_time", Integer.toString(segmentSeconds), "-reset_timestamps", "1",
                "-segment_format", "webm",
                "-segment_list", list.toString(), "-segment_list_type", "csv",
                dir.resolve("seg_%06d.webm").toString()));
        // -nostdin only stops ffmpeg's keyboard handling; pipe:0 still reads our stream
        process = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("ffmpeg.log").toFile())
                .start();
        stdin = new BufferedOutputStream(process.getOutputStream(), 64 * 1024);
        running = true;
        watcher = Thread.ofPlatform().daemon().name("segments-" + trackId).start(this::watch);
        return stdin;
    }

    public boolean started() {
        return process != null;
    }

    private void watch() {
        while (running) {
            poll();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void poll() {
        try {
            if (!Files.exists(list)) {
                return;
            }
            try (RandomAccessFile f = new RandomAccessFile(list.toFile(), "r")) {
                if (f.length() <= listOffset) {
                    return;
                }
                f.seek(listOffset);
                byte[] buf = new byte[(int) (f.length() - listOffset)];
                f.readFully(buf);
                listOffset += buf.length;
                partial.append(new String(buf, StandardCharsets.UTF_8));
            }
            int nl;
            while ((nl = partial.indexOf("\n")) >= 0) {
                String line = partial.substring(0, nl).trim();
                partial.delete(0, nl + 1);
                if (!line.isEmpty()) {
                    emit(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("track {}: cannot read segment list: {}", trackId, e.toString());
        }
    }

    private void emit(String line) {
        String[] parts = line.split(",");
        if (parts.length < 3) {
            LOG.warn("track {}: odd segment list line '{}'", trackId, line);
            return;
        }
        Path file = Path.of(parts[0]);
        if (!file.isAbsolute()) {
            file = dir.resolve(file);
        }
        double start = Double.parseDouble(parts[1]);
        double end = Double.parseDouble(parts[2]);
        String name = file.getFileName().toString();
        long seq = Long.parseLong(name.substring(4, name.indexOf('.')));
        emitted++;
        long[] ms = clock.place(start, end);
        onSegment.accept(new ClosedSegment(trackId, seq, file, ms[0], ms[1]));
    }

    /** Ends the stream: closes ffmpeg's stdin, waits for it to finalize the last segment, emits it. */
    public void finish(long timeoutMs) {
        if (process == null) {
            return;
        }
        try {
            stdin.close();
        } catch (IOException e) {
            LOG.debug("track {}: closing ffmpeg stdin: {}", trackId, e.toString());
        }
        try {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                LOG.warn("track {}: ffmpeg did not finish in {} ms, killing it", trackId, timeoutMs);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        running = false;
        watcher.interrupt();
        poll();
        if (process.exitValue() != 0) {
            LOG.warn("track {}: ffmpeg exited with {} (see {})", trackId, process.exitValue(), dir.resolve("ffmpeg.log"));
        }
    }

    public long segmentsEmitted() {
        return emitted;
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    @Override
    public void close() {
        running = false;
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
