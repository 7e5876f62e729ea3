package dev.parley.operator.model;

/**
 * Result of one autoscaler evaluation.
 *
 * @param previousTarget the pool size wanted before this evaluation
 * @param target the pool size wanted now
 * @param direction UP, DOWN or HOLD
 * @param reason a sentence for Events and status
 * @param changed whether this evaluation moved the target (worth an Event)
 */
public record ScaleDecision(int previousTarget, int target, Direction direction, String reason, boolean changed,
                            double averageLoad, AutoscalerMemory memory) {
    public enum Direction { UP, DOWN, HOLD }
}
