package dev.parley.sfu.allocation;

/**
 * A change the subscriber's client should hear about (PAUSED/RESUMED go to the client as events so the UI
 * can say "video paused: poor connection"), or the forwarder must act on (LAYER_CHANGED).
 */
public record AllocationEvent(Type type, String trackId, int spatial, int temporal) {

    public enum Type { PAUSED, RESUMED, LAYER_CHANGED }
}
