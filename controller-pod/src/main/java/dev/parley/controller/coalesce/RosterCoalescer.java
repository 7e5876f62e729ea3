package dev.parley.controller.coalesce;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Roster changes of many meetings gathered over one batch window ({@link #WINDOW_MILLIS}) and handed out as one
 * delta per meeting: each participant's changes within the window merged into one ({@link RosterChange#then}), so
 * a join storm costs every socket one roster message per window instead of one per join — O(N) messages per
 * window in total, not O(N) per client per join. The delta is encoded once and the same bytes go to every socket.
 * Thread-safe; the caller drains it every window.
 */
public final class RosterCoalescer {
    /** The batch window: a roster change reaches the sockets at most this much later. */
    public static final long WINDOW_MILLIS = 100;

    private Map<UUID, Map<String, RosterChange>> pending = new HashMap<>();

    /** Participant {@code pid} of meeting {@code m} changed. */
    public synchronized void add(UUID m, String pid, RosterChange change) {
        pending.computeIfAbsent(m, k -> new LinkedHashMap<>()).merge(pid, change, RosterChange::then);
    }

    /** The merged delta of every meeting that changed since the last drain (participant id → change). */
    public synchronized Map<UUID, Map<String, RosterChange>> drain() {
        Map<UUID, Map<String, RosterChange>> out = pending;
        pending = new HashMap<>();
        return out;
    }

    /** Applies a delta to a roster (participant id → fields), as a client does with a {@code roster_delta}. */
    public static void apply(Map<String, Map<String, String>> roster, Map<String, RosterChange> delta) {
        delta.forEach((pid, change) -> {
            Map<String, String> after = change.applyTo(roster.get(pid));
            if (after == null) {
                roster.remove(pid);
            } else {
                roster.put(pid, after);
            }
        });
    }
}
