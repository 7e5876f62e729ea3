package dev.parley.sfu.allocation;

/** What the forwarder does with a track for this subscriber. */
public enum TrackState {
    /** Forward the allocated layer. */
    FORWARDING,
    /** Not even the lowest layer fits the estimate: nothing is forwarded and the client is told why. */
    PAUSED_BANDWIDTH,
    /** The client shows no tile for it: nothing is forwarded, not a bandwidth problem. */
    NOT_VISIBLE
}
