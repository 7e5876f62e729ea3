package dev.parley.operator.model;

import java.time.Instant;

/**
 * One pod of a pool, as the model needs it: Kubernetes facts plus its registry entry.
 *
 * @param load registry entry, null when the pod is not (or no longer) registered
 * @param everRegistered the operator saw a registry entry for this pod before
 * @param failed the pod's phase is Failed or Succeeded (its process is gone)
 * @param unreadySince when the pod's Ready condition turned False (null when ready or unknown)
 * @param drain drain progress, null when not draining
 * @param drainRequested reason given by whoever asked for a drain (kubectl-parley), null if none
 */
public record PoolPod(String name, Instant created, PodLoad load, boolean everRegistered, boolean failed,
                      Instant unreadySince, DrainState drain, String drainRequested) {
    public boolean draining() {
        return drain != null;
    }
}
