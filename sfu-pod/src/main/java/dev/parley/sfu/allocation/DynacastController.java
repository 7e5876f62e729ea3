package dev.parley.sfu.allocation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dynacast: a publisher should not encode and upload a simulcast layer nobody receives. From every
 * subscriber's latest allocation this computes, per published video track, the highest spatial layer
 * anyone is forwarded, and tells the publisher to keep layers up to it and pause the ones above.
 *
 * <p>Lower layers stay on even when nobody uses them right now: they are cheap, and a subscriber whose
 * estimate drops must be able to step down instantly without waiting for the publisher to restart an
 * encoding. Resuming is immediate (a subscriber is waiting for it); pausing waits until the layer has been
 * unneeded for {@code pauseHoldMs}, so an allocator stepping down and up again, or a subscriber reconnecting,
 * does not make the publisher's encoder stop and restart (each restart costs a keyframe).
 *
 * <p>One instance per SFU meeting (publishers and subscribers of one meeting), on one thread.
 */
public final class DynacastController {

    private static final class PublishedTrack {
        final int layerCount;
        int activeMax;          // publisher currently told to send 0..activeMax (-1 = nothing)
        long belowSinceMs = -1; // when the needed layer first fell below activeMax
        int neededMaxDuringHold = -1;

        PublishedTrack(int layerCount) {
            this.layerCount = layerCount;
            this.activeMax = layerCount - 1; // a new publisher starts with every encoding on
        }
    }

    private final long pauseHoldMs;
    /** Layers up to this one stay on even when nobody receives the track (-1: everything may pause). */
    private final int minActiveLayer;
    private final Map<String, PublishedTrack> tracks = new HashMap<>();
    /** subscriber → (track → spatial layer it is forwarded, absent when none) */
    private final Map<String, Map<String, Integer>> needs = new HashMap<>();
    /** subscriber → the result its needs were taken from (allocators return the same instance while unchanged) */
    private final Map<String, AllocationResult> lastResult = new HashMap<>();

    public DynacastController(long pauseHoldMs) {
        this(pauseHoldMs, -1);
    }

    /**
     * @param minActiveLayer layers up to this index are never paused (0 in the SFU: a new subscriber gets a
     *                       first frame without waiting for the publisher to restart an encoder)
     */
    public DynacastController(long pauseHoldMs, int minActiveLayer) {
        this.pauseHoldMs = pauseHoldMs;
        this.minActiveLayer = minActiveLayer;
    }

    /** A publisher started a video track with {@code spatialLayers} encodings (1 for non-simulcast). */
    public void addTrack(String trackId, int spatialLayers) {
        if (spatialLayers < 1) {
            throw new IllegalArgumentException("a track has at least one spatial layer");
        }
        tracks.put(trackId, new PublishedTrack(spatialLayers));
    }

    public void removeTrack(String trackId) {
        tracks.remove(trackId);
        for (Map<String, Integer> m : needs.values()) {
            m.remove(trackId);
        }
    }

    /** Records what one subscriber is forwarded after its latest allocation. */
    public void onAllocation(String subscriberId, AllocationResult result) {
        if (lastResult.get(subscriberId) == result) {
            return; // unchanged decision: nothing to recompute (this is called after every feedback)
        }
        lastResult.put(subscriberId, result);
        Map<String, Integer> m = new HashMap<>();
        for (TrackAllocation t : result.tracks()) {
            if (t.forwarding() && t.kind() != TrackKind.AUDIO) {
                m.put(t.trackId(), t.spatial());
            }
        }
        needs.put(subscriberId, m);
    }

    /**
     * Records what one subscriber needs when it has no allocator result (a subscriber laid out by tile size only,
     * or one whose allocation the caller interprets itself): track → highest spatial layer it needs.
     */
    public void onNeeds(String subscriberId, Map<String, Integer> trackLayers) {
        lastResult.remove(subscriberId);
        needs.put(subscriberId, new HashMap<>(trackLayers));
    }

    public void removeSubscriber(String subscriberId) {
        needs.remove(subscriberId);
        lastResult.remove(subscriberId);
    }

    /** Decisions for tracks whose active layer set changes now; empty when nothing changes. */
    public List<DynacastDecision> evaluate(long nowMs) {
        Map<String, Integer> neededMax = new HashMap<>();
        for (Map<String, Integer> m : needs.values()) {
            for (Map.Entry<String, Integer> e : m.entrySet()) {
                neededMax.merge(e.getKey(), e.getValue(), Math::max);
            }
        }
        List<DynacastDecision> out = new ArrayList<>();
        for (Map.Entry<String, PublishedTrack> e : tracks.entrySet()) {
            PublishedTrack t = e.getValue();
            int needed = Math.min(Math.max(neededMax.getOrDefault(e.getKey(), -1), minActiveLayer), t.layerCount - 1);
            int target = t.activeMax;
            if (needed >= t.activeMax) {
                t.belowSinceMs = -1;
                target = needed; // resume at once: a subscriber waits for it
            } else if (t.belowSinceMs < 0) {
                t.belowSinceMs = nowMs;
                t.neededMaxDuringHold = needed;
            } else {
                t.neededMaxDuringHold = Math.max(t.neededMaxDuringHold, needed);
                if (nowMs - t.belowSinceMs >= pauseHoldMs) {
                    target = t.neededMaxDuringHold; // the most anyone needed during the hold
                    t.belowSinceMs = -1;
                }
            }
            if (target != t.activeMax) {
                out.add(decision(e.getKey(), t.activeMax, target));
                t.activeMax = target;
            }
        }
        return out;
    }

    /** Number of spatial layers of a track (0 for an unknown track). */
    public int layerCount(String trackId) {
        PublishedTrack t = tracks.get(trackId);
        return t == null ? 0 : t.layerCount;
    }

    /** Highest spatial layer the publisher is currently told to send, or -2 for an unknown track. */
    public int activeMax(String trackId) {
        PublishedTrack t = tracks.get(trackId);
        return t == null ? -2 : t.activeMax;
    }

    private static DynacastDecision decision(String trackId, int from, int to) {
        List<Integer> paused = new ArrayList<>();
        List<Integer> resumed = new ArrayList<>();
        for (int s = Math.min(from, to) + 1; s <= Math.max(from, to); s++) {
            (to < from ? paused : resumed).add(s);
        }
        return new DynacastDecision(trackId, to, List.copyOf(paused), List.copyOf(resumed));
    }
}
