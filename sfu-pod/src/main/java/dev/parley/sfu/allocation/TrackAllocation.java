package dev.parley.sfu.allocation;

/**
 * The allocator's decision for one track.
 *
 * @param spatial        layer to forward, -1 unless FORWARDING
 * @param temporal       highest temporal layer to forward, -1 unless FORWARDING
 * @param bitrateBps     what forwarding it costs (0 unless FORWARDING)
 * @param wantedSpatial  the layer the layout asks for with unlimited bandwidth (-1 when not visible)
 * @param wantedTemporal see wantedSpatial
 */
public record TrackAllocation(String trackId, TrackKind kind, TrackState state, int spatial, int temporal,
                              long bitrateBps, int wantedSpatial, int wantedTemporal) {

    public boolean forwarding() {
        return state == TrackState.FORWARDING;
    }

    /** Below what the layout wants: the estimate, not the layout, limits this track. */
    public boolean deficient() {
        return state == TrackState.PAUSED_BANDWIDTH
                || (state == TrackState.FORWARDING && (spatial < wantedSpatial || temporal < wantedTemporal));
    }
}
