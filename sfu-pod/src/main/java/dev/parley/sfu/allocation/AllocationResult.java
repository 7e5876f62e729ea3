package dev.parley.sfu.allocation;

import java.util.List;

/**
 * One run of the allocator for one subscriber.
 *
 * @param tracks       a decision per subscribed track, in budget order (audio, screen, cameras by priority)
 * @param budgetBps    the estimate the allocator used after hysteresis (may lag a rising estimate)
 * @param allocatedBps sum of the forwarded tracks' bitrates
 * @param desiredBps   what the layout would need with unlimited bandwidth; feed it to the estimator's
 *                     {@code setDesiredBitrate} so probing knows whether more is worth finding
 * @param events       changes since the previous run (pause/resume/layer)
 * @param keyframes    keyframes the forwarder needs for the new layers
 */
public record AllocationResult(List<TrackAllocation> tracks, long budgetBps, long allocatedBps, long desiredBps,
                               List<AllocationEvent> events, List<KeyframeNeed> keyframes) {

    public boolean deficient() {
        for (TrackAllocation t : tracks) {
            if (t.deficient()) {
                return true;
            }
        }
        return false;
    }

    public TrackAllocation track(String trackId) {
        for (TrackAllocation t : tracks) {
            if (t.trackId().equals(trackId)) {
                return t;
            }
        }
        return null;
    }
}
