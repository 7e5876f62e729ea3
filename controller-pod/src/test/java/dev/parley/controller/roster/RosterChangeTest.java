package dev.parley.controller.roster;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The projection's decisions that need no database: what an event changes, and which meetings a cut leaves open. */
class RosterChangeTest {
    private static final UUID M = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID P = UUID.fromString("00000000-0000-0000-0000-0000000000b1");
    private static final UUID E = UUID.fromString("00000000-0000-0000-0000-0000000000e1");
    private static final String DOC = "{\"participant_id\":\"" + P + "\",\"display_name\":\"Ada\",\"role\":\"host\","
            + "\"admission_state\":\"admitted\",\"participant_version\":7,"
            + "\"publish\":{\"audio\":true,\"video\":false,\"screen\":true}}";

    private static RosterEvent event(String type, String payload) {
        return new RosterEvent(M, 42, E, type, payload);
    }

    @Test
    void aParticipantEventSetsTheEntryToItsDocumentAtItsPosition() {
        assertThat(RosterChange.of(event("participant.role_changed", DOC))).isEqualTo(new RosterChange.Entry(
                M, P, "Ada", "host", "admitted", 7, true, false, true, 42, E));
    }

    @Test
    void meetingEndingIsOneChangeOfTheWholeMeetingWhateverItsPayload() {
        assertThat(RosterChange.of(event(RosterEvent.MEETING_ENDING, "not json"))).isEqualTo(new RosterChange.Ending(M, 42, E));
    }

    @Test
    void anEventWithoutAReadableParticipantDocumentChangesNothing() {
        for (String bad : new String[]{null, "not json", "[]", "{}",
                DOC.replace("\"participant_id\":\"" + P + "\"", "\"participant_id\":\"nope\""),
                DOC.replace("\"display_name\":\"Ada\"", "\"display_name\":3"),
                DOC.replace("\"participant_version\":7", "\"participant_version\":7.5"),
                DOC.replace("\"participant_version\":7", "\"participant_version\":\"7\""),
                DOC.replace("\"audio\":true", "\"audio\":\"yes\""),
                DOC.replace(",\"screen\":true", "")}) {
            assertThat(RosterChange.of(event("participant.joined", bad))).as(String.valueOf(bad)).isNull();
        }
    }

    @Test
    void aCutRoundLeavesOpenTheLastMeetingReadAndThoseAfterItInPostgresUuidOrder() {
        // signed comparison would put 8000… before 0000…; PostgreSQL compares the bytes unsigned
        UUID low = UUID.fromString("00000000-0000-0000-0000-000000000001");
        UUID mid = UUID.fromString("7fffffff-0000-0000-0000-000000000001");
        UUID high = UUID.fromString("80000000-0000-0000-0000-000000000001");
        assertThat(RosterProjection.pgCompare(high, low)).isPositive();
        assertThat(RosterProjection.notPast(List.of(high, low, mid), mid)).containsExactly(high, mid);
    }
}
