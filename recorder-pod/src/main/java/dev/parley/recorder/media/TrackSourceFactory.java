package dev.parley.recorder.media;

import java.io.IOException;
import java.util.List;

/**
 * Opens the sources of the tracks to record. Static sources (loopback RTP) return every track from
 * {@link #open()}; the SFU subscription returns tracks as they start ({@link #poll()}) and, during an SFU drain,
 * second legs of known tracks ({@link #poll()}) and legs to leave ({@link #retired()}).
 */
public interface TrackSourceFactory extends AutoCloseable {
    List<TrackSource> open() throws IOException;

    /** Sources that became available since the last call: a new track, or a new leg of a known track id. */
    default List<TrackSource> poll() {
        return List.of();
    }

    /** Legs to remove from their tracks (the old SFU after a drain hand-over). */
    default List<TrackSource> retired() {
        return List.of();
    }

    /** Why recording through this factory is impossible for good (e.g. the controller refused), or null. */
    default String failure() {
        return null;
    }

    /** Move to a new media server without a gap (SFU drain); false if this source can't. */
    default boolean resubscribe() {
        return false;
    }

    @Override
    default void close() {
    }
}
