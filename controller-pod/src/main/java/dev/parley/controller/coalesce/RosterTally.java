package dev.parley.controller.coalesce;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A meeting's roster reduced to what a paged socket's {@code roster_summary} says: how many participants are
 * admitted and waiting, and the admitted ones by role. Built from the participant documents every participant
 * event carries (id, role, admission state, version): a document is taken only when its version is newer than
 * the one known, so events applied twice, late or out of order and a load from PostgreSQL merge to the same
 * tally. It also remembers who was ever a host or co-host (a leaving host's event says {@code attendee}), whose
 * changes every paged socket still gets. Display only, never an authorization decision. Thread-safe.
 */
public final class RosterTally {
    private record Entry(long version, String role, String state) {
    }

    private final Map<String, Entry> entries = new HashMap<>();
    private final Set<String> moderators = new HashSet<>();
    /** Kept as entries change: every socket asks for the count at every run (no walk over the roster). */
    private int admitted;
    private int waiting;
    private final Map<String, Integer> byRole = new TreeMap<>();

    /** A participant document of any participant event; anything without id, state and version is ignored. */
    public void apply(JsonNode doc) {
        if (doc == null || !doc.path("participant_id").isTextual() || !doc.path("admission_state").isTextual()
                || !doc.path("participant_version").canConvertToLong()) {
            return;
        }
        put(doc.path("participant_id").asText(), doc.path("participant_version").asLong(),
                doc.path("role").asText("attendee"), doc.path("admission_state").asText());
    }

    /** One participant as PostgreSQL has it (or as an event says it). */
    public synchronized void put(String participantId, long version, String role, String state) {
        Entry known = entries.get(participantId);
        if (known != null && known.version >= version) {
            return;
        }
        if (known != null) {
            count(known, -1);
        }
        Entry now = new Entry(version, role, state);
        entries.put(participantId, now);
        count(now, 1);
        if (isModeratorRole(role)) {
            moderators.add(participantId);
        }
    }

    private void count(Entry e, int d) {
        if ("admitted".equals(e.state)) {
            admitted += d;
            byRole.merge(e.role, d, (a, b) -> a + b == 0 ? null : a + b);
        } else if ("waiting".equals(e.state)) {
            waiting += d;
        }
    }

    /** Whether the participant was a host or co-host at any time this tally knows of. */
    public synchronized boolean wasModerator(String participantId) {
        return moderators.contains(participantId);
    }

    /** Admitted participants. */
    public synchronized int admitted() {
        return admitted;
    }

    /** The counts a summary carries (roles in a fixed order: the same bytes for the same roster). */
    public synchronized Counts counts() {
        return new Counts(admitted, waiting, byRole);
    }

    /** {@code count}: admitted participants; {@code byRole}: the admitted ones by role. */
    public record Counts(int count, int waiting, Map<String, Integer> byRole) {
        public Counts {
            byRole = Map.copyOf(byRole);
        }
    }

    static boolean isModeratorRole(String role) {
        return "host".equals(role) || "cohost".equals(role) || "co_host".equals(role);
    }
}
