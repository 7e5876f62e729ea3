package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The data of the notice a receiver's client gets when top-N audio moved its slots (docs/internal-api.md "Top-N
 * audio"): {@code slot_assignments} = the whole map, {@code slot_delta} = the moved slots only, with the version
 * chain ({@code base} → {@code version}) that lets a client see it missed one.
 */
final class SlotNotice {
    private SlotNotice() {}

    /** One slot as the client reads it: its track, or {@code participant_id: null} when the slot is now empty. */
    static void entry(ArrayNode list, Slot s) {
        ObjectNode o = list.addObject().put("mid", s.mid);
        if (s.track == null) { o.putNull("participant_id"); return; }
        o.put("participant_id", s.track.owner.id).put("track_id", s.track.trackId).put("kind", s.track.kind())
                .put("source", s.track.source());
    }

    /** {@code {sequence, slot_assignments: [every slot with a track]}}: the notice as it always was. */
    static ObjectNode whole(long sequence, Participant sub) {
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("sequence", sequence);
        ArrayNode list = data.putArray("slot_assignments");
        for (Slot s : sub.slots) if (s.track != null) entry(list, s);
        return data;
    }

    /** {@code {sequence, base, version, changes}}: applies to the client's map of version {@code base}. */
    static ObjectNode delta(long sequence, long base, long version, ArrayNode changes) {
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("sequence", sequence).put("base", base).put("version", version);
        data.set("changes", changes);
        return data;
    }
}
