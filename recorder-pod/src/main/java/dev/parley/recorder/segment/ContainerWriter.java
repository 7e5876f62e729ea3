package dev.parley.recorder.segment;

import java.io.IOException;

/** Writes a track's frames into a simple streaming container that ffmpeg reads from a pipe. */
public interface ContainerWriter {
    /** The ffmpeg demuxer name for this container ({@code -f}). */
    String ffmpegFormat();

    /** {@code pts} is in the codec clock (90 kHz video, 48 kHz Opus), starting near 0, gaps preserved. */
    void writeFrame(byte[] data, int off, int len, long pts, boolean keyframe) throws IOException;

    void finish() throws IOException;
}
