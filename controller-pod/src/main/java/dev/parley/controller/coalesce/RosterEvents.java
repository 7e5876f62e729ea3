package dev.parley.controller.coalesce;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which control events a {@code roster_delta} may carry and the roster change each one is. Only joins (admitted)
 * and departures: the events a join storm is made of. Everything else (waiting room, admission, roles,
 * permissions with their command state) keeps its own event. A join is a {@code REPLACE}: the event holds the
 * whole participant document, and fields at their usual value are left out (the client fills them in: role
 * {@code attendee}, {@code admitted}, every publish permission on).
 */
public final class RosterEvents {
    private RosterEvents() {
    }

    /** Whether an event of this type and payload may go in a delta (one for every socket: no private audience). */
    public static boolean coalescible(String type, JsonNode payload, boolean publicAudience) {
        if (!publicAudience || payload == null || !payload.path("participant_id").isTextual()) {
            return false;
        }
        return switch (type) {
            case "participant_joined" -> "admitted".equals(payload.path("admission_state").asText("admitted"));
            case "participant_left" -> true;
            default -> false;
        };
    }

    /** The change a coalescible event makes to its participant's entry. */
    public static RosterChange change(String type, JsonNode p) {
        Map<String, String> f = new LinkedHashMap<>();
        if ("participant_left".equals(type)) {
            if (p.path("reason").isTextual()) {
                f.put("reason", p.path("reason").asText());
            }
            return new RosterChange(RosterChange.Kind.REMOVE, f);
        }
        f.put("display_name", p.path("display_name").asText(""));
        f.put("participant_version", Long.toString(p.path("participant_version").asLong()));
        String role = p.path("role").asText("attendee");
        if (!"attendee".equals(role)) {
            f.put("role", role);
        }
        JsonNode pub = p.path("publish");
        StringBuilder allowed = new StringBuilder();
        for (String kind : new String[] {"audio", "video", "screen"}) {
            if (pub.path(kind).asBoolean(true)) {
                allowed.append(allowed.isEmpty() ? "" : ",").append(kind);
            }
        }
        if (!"audio,video,screen".contentEquals(allowed)) {
            f.put("publish", allowed.toString());
        }
        return new RosterChange(RosterChange.Kind.REPLACE, f);
    }
}
