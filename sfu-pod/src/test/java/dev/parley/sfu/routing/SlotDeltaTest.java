package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a receiver's client is told when top-N moves its audio slots ({@link AudioTopN#move}): a client that reads
 * deltas gets only the moved slots with the version chain, one that does not the whole map as before; nothing moved,
 * nothing told.
 */
class SlotDeltaTest {
    private final Meeting meeting = new Meeting("m");
    private final Participant receiver = participant("r");

    private Participant participant(String id) {
        Participant p = new Participant(id, meeting);
        meeting.participants.put(id, p);
        return p;
    }

    private void speaker(String id) {
        Participant p = participant(id);
        p.tracksByMid.put("0", new PublishedTrack(p, "0", false, "opus", 111, 0, 48000, List.of(), 1));
    }

    private ObjectNode move(String... next) {
        return meeting.audio.move(receiver, receiver.slots, next, true);
    }

    @Test
    void onlyMovedSlotsAreSentWithAVersionChain() {
        for (String id : List.of("a", "b", "c")) speaker(id);
        for (int i = 0; i < 3; i++) receiver.slots.add(new Slot(receiver, String.valueOf(i), false, 0x1000 + i, 111, 0, 0));
        receiver.slotDeltas = true;
        long v0 = receiver.slotVersion;

        ObjectNode first = move("a", "b", null);
        assertThat(first.get("base").asLong()).isEqualTo(v0);
        assertThat(first.get("version").asLong()).isEqualTo(v0 + 1);
        assertThat(first.has("slot_assignments")).isFalse();
        assertThat(first.get("changes")).hasSize(2);
        assertThat(entry(first, 0)).isEqualTo("0=a:0/audio/microphone");
        assertThat(entry(first, 1)).isEqualTo("1=b:0/audio/microphone");

        ObjectNode moved = move("a", "c", null);                     // one slot changes speaker
        assertThat(moved.get("base").asLong()).isEqualTo(v0 + 1);
        assertThat(moved.get("version").asLong()).isEqualTo(v0 + 2);
        assertThat(moved.get("changes")).hasSize(1);
        assertThat(entry(moved, 0)).isEqualTo("1=c:0/audio/microphone");

        ObjectNode emptied = move(null, "c", null);                  // a slot emptied: participant_id null
        assertThat(emptied.get("changes")).hasSize(1);
        assertThat(emptied.get("changes").get(0).get("mid").asText()).isEqualTo("0");
        assertThat(emptied.get("changes").get(0).get("participant_id").isNull()).isTrue();
        assertThat(emptied.get("base").asLong()).isEqualTo(v0 + 2);

        assertThat(move(null, "c", null)).as("unchanged: no notice").isNull();
        assertThat(receiver.slotVersion).as("and no new version").isEqualTo(v0 + 3);
    }

    @Test
    void aClientWithoutDeltasGetsTheWholeMapAndSilentMovesStillAdvanceTheVersion() {
        for (String id : List.of("a", "b")) speaker(id);
        for (int i = 0; i < 2; i++) receiver.slots.add(new Slot(receiver, String.valueOf(i), false, 0x1000 + i, 111, 0, 0));
        long v0 = receiver.slotVersion;
        move("a", null);
        ObjectNode whole = move("a", "b");
        assertThat(whole.has("changes")).isFalse();
        assertThat(whole.has("base")).isFalse();
        assertThat(whole.get("slot_assignments")).hasSize(2);
        assertThat(whole.get("slot_assignments").get(0).get("participant_id").asText()).isEqualTo("a");
        assertThat(whole.get("slot_assignments").get(1).get("track_id").asText()).isEqualTo("b:0");

        // a move the answer reports (no notice) is still a new version: a delta after it names it as its base
        assertThat(meeting.audio.move(receiver, receiver.slots, new String[]{"b", "a"}, false)).isNull();
        assertThat(receiver.slotVersion).isEqualTo(v0 + 3);
    }

    private static String entry(JsonNode notice, int i) {
        JsonNode e = notice.get("changes").get(i);
        return e.get("mid").asText() + "=" + e.get("track_id").asText() + "/" + e.get("kind").asText() + "/" + e.get("source").asText();
    }
}
