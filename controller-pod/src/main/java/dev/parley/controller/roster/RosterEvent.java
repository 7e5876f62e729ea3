package dev.parley.controller.roster;

import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/** One committed outbox event the roster projection reads (its payload as stored). */
record RosterEvent(UUID meetingId, long position, UUID eventId, String type, String payload) {

    /** The outbox event types whose payload is the participant document, and the one meeting-wide change. */
    static final List<String> PARTICIPANT_TYPES = List.of("participant.joined", "participant.waiting",
            "participant.participant_admitted", "participant.participant_denied", "participant.participant_removed",
            "participant.role_changed", "participant.permission_changed", "participant.left");
    static final String MEETING_ENDING = "meeting.ending";
    /** Every type the projection reads. */
    static final List<String> TYPES = Stream.concat(PARTICIPANT_TYPES.stream(), Stream.of(MEETING_ENDING)).toList();
}
