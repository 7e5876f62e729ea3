package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.platform.internal.SfuEvent;
import dev.parley.sfu.events.EventPublisher;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Tells a subscriber's client when one of its video subscriptions is paused for bandwidth and when it
 * resumes ({@code subscription_paused} / {@code subscription_resumed} through the owner controller), so the
 * tile can say why it froze. Compares the slots' actual pause state (after the allocation's grace) with what
 * was last said; runs on the media tick, per subscriber.
 */
final class PauseNotices {
    /** Track ids this subscriber was told are paused → their publisher. */
    private final Map<String, String> told = new HashMap<>();
    /** Numbers the notices (they may arrive out of order; the client keeps the highest per track). */
    private long sequence;

    void update(Participant sub, EventPublisher events) {
        for (Slot s : sub.slots) {
            if (!s.video || s.track == null || !s.paused || told.containsKey(s.track.trackId)) continue;
            told.put(s.track.trackId, s.track.owner.id);
            send(sub, s.track.trackId, s.track.owner.id, SfuEvent.SUBSCRIPTION_PAUSED, events);
        }
        if (told.isEmpty()) return;
        for (Iterator<Map.Entry<String, String>> it = told.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, String> e = it.next();
            boolean paused = false;
            for (Slot s : sub.slots) if (s.track != null && s.paused && s.track.trackId.equals(e.getKey())) paused = true;
            if (paused) continue;
            it.remove();
            // resumed, or no longer subscribed at all: either way the client must stop saying "paused"
            send(sub, e.getKey(), e.getValue(), SfuEvent.SUBSCRIPTION_RESUMED, events);
        }
    }

    private void send(Participant sub, String trackId, String publisherId, String type, EventPublisher events) {
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("track_id", trackId).put("publisher_id", publisherId)
                .put("reason", "bandwidth").put("sequence", ++sequence);
        events.publish(sub.subscribeEventsUrl, type, sub.meeting.id, sub.id, sub.subscribeGeneration, data);
    }
}
