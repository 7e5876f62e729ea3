package dev.parley.controller.roster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.http.JsonBody;

import java.util.UUID;

/**
 * What one roster event does to the read model, decided without the database: a participant event sets the
 * participant's entry to the event's participant document; {@code meeting.ending} ends every active entry of the
 * meeting. Either applies only to entries below the event's position ({@link RosterStore}).
 */
sealed interface RosterChange permits RosterChange.Entry, RosterChange.Ending {

    /** The entry becomes this participant document (from the event at {@code position}). */
    record Entry(UUID meetingId, UUID participantId, String displayName, String role, String admissionState,
                 long participantVersion, boolean audio, boolean video, boolean screen, long position, UUID eventId)
            implements RosterChange {
    }

    /**
     * {@code meeting.ending}: what ending does to every waiting/admitted participant (CommandService.endMeeting: left,
     * no publishing, a host becomes attendee, one new version).
     */
    record Ending(UUID meetingId, long position, UUID eventId) implements RosterChange {
    }

    /** The change of {@code e}, or null when a participant event has no readable participant document. */
    static RosterChange of(RosterEvent e) {
        if (RosterEvent.MEETING_ENDING.equals(e.type())) {
            return new Ending(e.meetingId(), e.position(), e.eventId());
        }
        JsonNode p = document(e.payload());
        if (p == null) {
            return null;
        }
        JsonNode pub = p.get("publish");
        return new Entry(e.meetingId(), UUID.fromString(p.get("participant_id").asText()),
                p.get("display_name").asText(), p.get("role").asText(), p.get("admission_state").asText(),
                p.get("participant_version").asLong(), pub.get("audio").asBoolean(), pub.get("video").asBoolean(),
                pub.get("screen").asBoolean(), e.position(), e.eventId());
    }

    /** The participant document, or null when a field the roster needs is missing or malformed. */
    private static JsonNode document(String payload) {
        try {
            JsonNode p = JsonBody.JSON.readTree(payload);
            JsonNode pub = p.path("publish");
            for (String f : new String[]{"participant_id", "display_name", "role", "admission_state"}) {
                if (!p.path(f).isTextual()) {
                    return null;
                }
            }
            UUID.fromString(p.get("participant_id").asText());
            if (!p.path("participant_version").canConvertToLong() || !p.path("participant_version").isIntegralNumber()
                    || !pub.path("audio").isBoolean() || !pub.path("video").isBoolean() || !pub.path("screen").isBoolean()) {
                return null;
            }
            return p;
        } catch (Exception ex) {
            return null;
        }
    }
}
