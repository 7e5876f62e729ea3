package dev.parley.sfu.routing;

import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.allocation.TrackAllocation;

import java.util.function.ObjLongConsumer;

/**
 * Chooses the layers a VP9 SVC slot forwards ({@link SvcFilter} targets): the subscriber's tile size picks the
 * spatial layer (the largest whose size from the scalability structure fits the tile, else the smallest), and
 * with congestion control the bandwidth left for the track caps it by the measured cost of the spatial layers
 * up to it. The allocator sees an SVC track as one stream (it has one SSRC); this adapter gives it the layer
 * choice afterwards, from the allocator's budget minus what its other tracks got. Control path (a few times a
 * second per slot).
 */
final class SvcSelection {
    /** While a higher spatial layer is wanted, a keyframe (its only switch point in L3T3_KEY) is asked this often. */
    static final long KEYFRAME_EVERY_NANOS = 1_000_000_000L;

    private SvcSelection() {}

    /** The spatial layer for a tile of {@code maxW} × {@code maxH}, or {@link SvcFilter#ALL} while no sizes are known. */
    static int spatialForTile(SvcStream st, int maxW, int maxH) {
        if (st.spatialLayers == 0) return st.topSpatial < 0 ? SvcFilter.ALL : st.topSpatial;
        int best = 0;
        for (int s = 0; s < st.spatialLayers; s++) if (st.width[s] <= maxW && st.height[s] <= maxH) best = s;
        return best;
    }

    /**
     * The spatial layer for the tile, capped to what {@code budgetBps} carries (every layer up to it is sent).
     * Climbing above the current target needs a quarter more headroom, so a budget at a layer's edge does not
     * cost a keyframe per allocation round.
     */
    static int choose(SvcStream st, int maxW, int maxH, long budgetBps, int currentTarget) {
        int sid = spatialForTile(st, maxW, maxH);
        if (budgetBps == Long.MAX_VALUE || sid == SvcFilter.ALL) return sid;
        while (sid > 0) {
            long cost = st.costUpTo(sid);
            if (sid <= currentTarget ? cost <= budgetBps : cost + cost / 4 <= budgetBps) break;
            sid--;
        }
        return sid;
    }

    /** Sets the slot's SVC targets and asks for the keyframe a spatial step up needs. */
    static void apply(Slot s, long now, long budgetBps, ObjLongConsumer<Layer> keyframe) {
        if (s.svc == null || s.track == null || !s.track.vp9) return;
        Layer l = s.track.layers[0];
        SvcStream st = l.svc;
        s.svc.targetSpatial = choose(st, s.maxWidth, s.maxHeight, budgetBps, s.svc.targetSpatial);
        int[] wanted = s.subscriber.wanted.get(s.track.trackId);
        s.svc.targetTemporal = st.temporalForFps(wanted != null && wanted.length > 2 ? wanted[2] : 0);
        if (s.current == l && !s.paused && (s.svc.spatialUpWanted(now, st.layers() - 1, KEYFRAME_EVERY_NANOS)
                || s.svc.temporalUpStalled(now, st.topTemporal, KEYFRAME_EVERY_NANOS))) keyframe.accept(l, now);
    }

    /**
     * After an allocation round of {@code sub}: each SVC slot gets the budget its track may use. The allocator
     * counts an SVC track at its single-stream cost, so what the tiles want of SVC layers beyond that is added
     * to the desired bitrate: the estimator probes for it (without, an estimate that only follows what is sent
     * would never let a subscriber climb).
     */
    static void afterAllocation(Participant sub, long now, ObjLongConsumer<Layer> keyframe) {
        AllocationResult r = sub.allocation.last();
        long moreWanted = 0;
        for (Slot s : sub.slots) {
            if (s.track == null || !s.track.vp9) continue;
            TrackAllocation a = r == null ? null : r.track(s.track.trackId);
            long budget = a == null ? Long.MAX_VALUE : Math.max(0, r.budgetBps() - (r.allocatedBps() - a.bitrateBps()));
            apply(s, now, budget, keyframe);
            SvcStream st = s.track.layers[0].svc;
            int wanted = spatialForTile(st, s.maxWidth, s.maxHeight);
            if (a != null && !s.paused && wanted != SvcFilter.ALL) moreWanted += Math.max(0, st.costUpTo(wanted) - a.bitrateBps());
        }
        if (moreWanted > 0 && r != null && sub.bwe != null) sub.bwe.setDesiredBitrate(r.desiredBps() + moreWanted);
    }
}
