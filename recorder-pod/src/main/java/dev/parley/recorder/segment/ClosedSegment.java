package dev.parley.recorder.segment;

import java.nio.file.Path;

/**
 * A finished segment file on local disk. Times are epoch ms: the track's anchor (wall clock at its first
 * frame in this generation) plus the segment's media time from ffmpeg's segment list.
 */
public record ClosedSegment(String trackId, long seq, Path file, long startMs, long endMs) {
}
