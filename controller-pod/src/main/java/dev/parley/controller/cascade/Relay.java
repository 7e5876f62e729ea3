package dev.parley.controller.cascade;

import java.util.SortedSet;

/**
 * One hop of a track's distribution tree: {@code from} sends {@code layers} of {@code trackId} to {@code to}.
 * {@link PathState#ACTIVE} hops carry media; a {@link PathState#PREPARING} hop is being set up to replace the
 * active hop into the same SFU (make-before-break) and carries nothing to receivers until {@link Planner#ready}.
 * An idle hop ({@code idleSinceMillis ≥ 0}) has nobody behind it and carries no layers; it is kept for the grace
 * so a quick resubscribe does not rebuild it, then dropped.
 */
public record Relay(String trackId, String from, String to, SortedSet<Integer> layers, PathState state, long idleSinceMillis) {
    public Relay {
        layers = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(layers));
    }

    public boolean idle() {
        return idleSinceMillis >= 0;
    }

    public enum PathState { ACTIVE, PREPARING }
}
