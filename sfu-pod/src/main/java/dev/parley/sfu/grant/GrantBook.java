package dev.parley.sfu.grant;

import dev.parley.platform.grant.Grant;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Epoch fencing for one meeting's grants: a lower controller epoch is rejected, a higher one replaces every
 * grant of the older epoch; within an epoch a lower version is ignored.
 */
public final class GrantBook {
    public enum Outcome { APPLIED, IGNORED_OLD_VERSION, STALE_EPOCH }

    private long highestEpoch = Long.MIN_VALUE;
    private final Map<String, GrantState> grants = new ConcurrentHashMap<>();

    /** Checks and (if newer) raises the meeting's epoch; returns false if {@code epoch} is stale. */
    public synchronized boolean admitEpoch(long epoch) {
        if (epoch < highestEpoch) return false;
        if (epoch > highestEpoch) {
            highestEpoch = epoch;
            grants.replaceAll((pid, g) -> GrantState.NONE); // everything from the older owner is void
        }
        return true;
    }

    public synchronized long highestEpoch() { return highestEpoch; }

    public synchronized Outcome apply(Grant g, long nowNanos) {
        if (!admitEpoch(g.controllerEpoch())) return Outcome.STALE_EPOCH;
        GrantState cur = grants.get(g.participantId());
        if (cur != null && cur.epoch() == g.controllerEpoch() && g.version() < cur.version()) return Outcome.IGNORED_OLD_VERSION;
        grants.put(g.participantId(), GrantState.of(g, nowNanos));
        return Outcome.APPLIED;
    }

    public GrantState get(String participantId) { return grants.getOrDefault(participantId, GrantState.NONE); }

    public long version(String participantId) { return get(participantId).version(); }

    public void remove(String participantId) { grants.remove(participantId); }

    /** True while some participant's grant has not run out: a transport for it may still arrive. */
    public boolean anyLive(long nowNanos) {
        for (GrantState g : grants.values()) if (g.live(nowNanos)) return true;
        return false;
    }

    public Map<String, GrantState> snapshot() { return Map.copyOf(grants); }
}
