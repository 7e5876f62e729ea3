package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * One wanted track with the tile size it is shown at (the SFU picks the layer). {@code pinned}: the subscriber
 * pinned this track, so among its cameras it gets the budget first (before the active speaker).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TrackSubscription(String trackId, int maxWidth, int maxHeight, int maxFps, boolean pinned) {
    public TrackSubscription(String trackId, int maxWidth, int maxHeight, int maxFps) {
        this(trackId, maxWidth, maxHeight, maxFps, false);
    }
}
