package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.platform.internal.SfuEvent;
import dev.parley.sfu.events.EventPublisher;

import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * Tells a subscriber's client when one of its video subscriptions is paused for bandwidth and when it
 * resumes ({@code subscription_paused} / {@code subscription_resumed} through the owner controller), so the
 * tile can say why it froze. Compares the slots' actual pause state (after the allocation's grace) with what
 * was last said; runs on the media tick, per subscriber.
 */
final class PauseNotices {
    /** Track ids this subscriber was told are paused. */
    private final Set<String> told = new HashSet<>();

    void update(Participant sub, EventPublisher events) {
        for (Slot s : sub.slots) {
            if (!s.video || s.track == null || !s.paused || told.contains(s.track.trackId)) continue;
            told.add(s.track.trackId);
            send(sub, s.track, SfuEvent.SUBSCRIPTION_PAUSED, events);
        }
        if (told.isEmpty()) return;
        for (Iterator<String> it = told.iterator(); it.hasNext(); ) {
            String id = it.next();
            PublishedTrack still = null;
            boolean paused = false;
            for (Slot s : sub.slots) {
                if (s.track != null && s.track.trackId.equals(id)) { still = s.track; paused = s.paused; }
            }
            if (paused) continue;
            it.remove();
            if (still != null) send(sub, still, SfuEvent.SUBSCRIPTION_RESUMED, events);
        }
    }

    private static void send(Participant sub, PublishedTrack t, String type, EventPublisher events) {
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("track_id", t.trackId).put("publisher_id", t.owner.id)
                .put("reason", "bandwidth");
        events.publish(sub.subscribeEventsUrl, type, sub.meeting.id, sub.id, sub.subscribeGeneration, data);
    }
}
