package dev.parley.recorder.media;

import java.io.IOException;
import java.util.List;

/** Opens the sources of the tracks to record. */
public interface TrackSourceFactory {
    List<TrackSource> open() throws IOException;
}
