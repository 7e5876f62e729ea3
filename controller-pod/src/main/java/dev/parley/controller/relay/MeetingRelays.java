package dev.parley.controller.relay;

import dev.parley.controller.cascade.DistributionPlan;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One owned meeting's relay state at the owner: the tracks its SFUs reported, the last plan and the relays in place.
 * {@link #tracks} and {@link #learnedAt} are written by event handlers; the rest only on the driver's thread.
 */
final class MeetingRelays {
    final Map<String, TrackInfo> tracks = new ConcurrentHashMap<>();
    /** track id → System.nanoTime() its track_published event arrived: a track sync that began earlier keeps it. */
    final Map<String, Long> learnedAt = new ConcurrentHashMap<>();
    long epoch;
    DistributionPlan plan = DistributionPlan.EMPTY;
    /** hop key → relay; read by the state view (hence a synchronized copy there). */
    final Map<String, AppliedRelay> applied = new HashMap<>();
    /** The tracks were read from the SFUs at this epoch ({@link TrackSync}); when (nanoTime) the last read began. */
    boolean synced;
    long syncedAt;
    /**
     * Relay ends left at a pod taken for down when the plan dropped their hop (no call reaches it): deleted there when
     * it answers again, so an origin back from a false verdict stops sending relays nobody receives. Driver thread only.
     */
    final java.util.List<Stranded> stranded = new java.util.ArrayList<>();

    record Stranded(String pod, AppliedRelay relay) {
    }

    /** Our epoch's grants are held at the SFUs: our relays (which raise the SFUs' epoch) may go out. */
    boolean grantsHeld;

    MeetingRelays(long epoch) {
        this.epoch = epoch;
    }

    /** A new owner epoch: the previous relays are fenced by the SFUs, ours are made anew from tracks read again. */
    void newEpoch(long e) {
        epoch = e;
        plan = DistributionPlan.EMPTY;
        applied.clear();
        stranded.clear(); // the SFUs fence the old epoch's relays themselves
        synced = false;
        grantsHeld = false;
    }

    void learnt(TrackInfo t) {
        learnedAt.put(t.trackId(), System.nanoTime());
        tracks.put(t.trackId(), t);
    }

    void forget(String trackId) {
        tracks.remove(trackId);
        learnedAt.remove(trackId);
    }
}
