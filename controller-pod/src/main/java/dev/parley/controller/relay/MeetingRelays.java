package dev.parley.controller.relay;

import dev.parley.controller.cascade.DistributionPlan;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One owned meeting's relay state at the owner: the tracks its SFUs reported, the last plan and the relays in place.
 * {@link #tracks} is written by event handlers; the rest only on the driver's thread.
 */
final class MeetingRelays {
    final Map<String, TrackInfo> tracks = new ConcurrentHashMap<>();
    long epoch;
    DistributionPlan plan = DistributionPlan.EMPTY;
    /** hop key → relay; read by the state view (hence a synchronized copy there). */
    final Map<String, AppliedRelay> applied = new HashMap<>();

    MeetingRelays(long epoch) {
        this.epoch = epoch;
    }

    /** A new owner epoch: the previous relays are fenced by the SFUs, ours are made anew. */
    void newEpoch(long e) {
        epoch = e;
        plan = DistributionPlan.EMPTY;
        applied.clear();
    }
}
