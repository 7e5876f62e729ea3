package dev.parley.operator.model;

import java.time.Instant;

/**
 * What the autoscaler remembers between reconciles: since when load has been high/low (stabilization) and
 * when it last scaled (cooldowns). Any field may be null. Kept in status and in the operator's memory.
 */
public record AutoscalerMemory(Integer target, Instant highSince, Instant lowSince, Instant lastUp, Instant lastDown) {
    public static final AutoscalerMemory EMPTY = new AutoscalerMemory(null, null, null, null, null);
}
