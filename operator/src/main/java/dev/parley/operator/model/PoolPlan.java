package dev.parley.operator.model;

import java.util.List;
import java.util.Map;

/**
 * What the reconciler should do to one pool this round.
 *
 * @param create how many new pods to start
 * @param startDrain pods to start draining, with the reason (least loaded first for scale-down)
 * @param replaceNow pods to delete at once: their process is gone (no lease, failed), nothing can be moved
 */
public record PoolPlan(int create, Map<String, String> startDrain, Map<String, String> replaceNow, List<String> notes) {
}
