package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.platform.internal.SfuEvent;
import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.allocation.DynacastController;
import dev.parley.sfu.allocation.DynacastDecision;
import dev.parley.sfu.allocation.TrackAllocation;
import dev.parley.sfu.events.EventPublisher;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Dynacast for one meeting (docs/bwe.md §2): every {@link #INTERVAL_NANOS} it collects, per subscriber, the
 * simulcast layer of each video track it is forwarded (the allocator's decision; the tile-size rule for
 * subscribers without transport-cc, recorders included), lets a {@link DynacastController} decide which
 * layers nobody needs, and tells each publisher (a {@code publisher_layers} event through its owner
 * controller) which of its encodings to keep sending. The lowest layer always stays on.
 *
 * <p>A layer the publisher was told to stop is still offered to allocators (at the bitrate it had when it
 * stopped), so a subscriber whose tile or network grows can ask for it again, which resumes it. Media thread only.
 */
final class MeetingDynacast {
    static final long INTERVAL_NANOS = 500_000_000L;
    /** A layer nobody needs is paused after this long (an allocator stepping down and up again keeps it). */
    static final long PAUSE_HOLD_MS = 5_000;
    /** While some layer is paused, the publisher hears the current state again this often (a lost event heals). */
    static final long REANNOUNCE_NANOS = 10_000_000_000L;
    /** A resumed layer is still offered to allocators until its packets arrive again, for at most this long. */
    static final long RESUME_GRACE_NANOS = 3_000_000_000L;
    private static final long MIN_MEASURED_BPS = 50_000;
    /** The needs of this meeting's relays, as one pseudo subscriber (no participant id can contain a NUL). */
    private static final String RELAYS = "\u0000relays";

    private static final class Stopped {
        final long bitrateBps;
        boolean paused = true;
        long resumedAtNanos;

        Stopped(long bitrateBps) { this.bitrateBps = bitrateBps; }
    }

    private final Meeting meeting;
    private final DynacastController controller = new DynacastController(PAUSE_HOLD_MS, 0);
    private final Map<String, PublishedTrack> tracks = new LinkedHashMap<>();
    private final Map<Layer, Stopped> stopped = new IdentityHashMap<>();
    private final Map<String, Long> announcedAt = new HashMap<>();
    private long lastRunNanos;
    /**
     * Numbers every announcement: events travel as separate HTTP requests (with retries) and may arrive out of
     * order; the client applies only a higher sequence than the last it applied.
     */
    private long sequence;

    MeetingDynacast(Meeting meeting) { this.meeting = meeting; }

    /** A published track: simulcast video takes part (a single encoding has nothing to pause). */
    void addTrack(PublishedTrack t) {
        if (!t.video || t.layers.length < 2) return;
        tracks.put(t.trackId, t);
        controller.addTrack(t.trackId, t.layers.length);
    }

    void removeTrack(PublishedTrack t) {
        if (tracks.remove(t.trackId) == null) return;
        controller.removeTrack(t.trackId);
        announcedAt.remove(t.trackId);
        for (Layer l : t.layers) stopped.remove(l);
    }

    void removeSubscriber(String participantId) { controller.removeSubscriber(participantId); }

    /**
     * What an allocator should assume {@code l} costs when the publisher was told to stop it (or was told to
     * resume it and its packets have not arrived yet); -1 when dynacast has nothing to do with it.
     */
    long stoppedCost(Layer l) {
        if (stopped.isEmpty()) return -1;
        Stopped s = stopped.get(l);
        return s == null ? -1 : s.bitrateBps;
    }

    /** Highest spatial layer the publisher is told to send for {@code trackId} (-2: not a dynacast track). */
    int activeMax(String trackId) { return controller.activeMax(trackId); }

    /** One round (call from the media tick; it runs every {@link #INTERVAL_NANOS}). */
    void tick(long now, EventPublisher events) {
        if (tracks.isEmpty() || now - lastRunNanos < INTERVAL_NANOS) return;
        lastRunNanos = now;
        for (Participant p : meeting.participants.values()) {
            if (p.subscribe == null || !p.subscribe.connected()) { controller.removeSubscriber(p.id); continue; }
            AllocationResult r = p.twccExtId > 0 && p.allocation != null ? p.allocation.last() : null;
            Map<String, Integer> needs = new HashMap<>();
            for (Slot s : p.slots) {
                if (!s.video || s.track == null || !tracks.containsKey(s.track.trackId)) continue;
                TrackAllocation a = r == null ? null : r.track(s.track.trackId);
                int need = a != null ? (a.forwarding() ? a.spatial() : -1) : tileLayer(s, now);
                if (need >= 0) needs.merge(s.track.trackId, need, Math::max);
            }
            controller.onNeeds(p.id, needs);
        }
        // relays to other SFUs count as one more receiver: the layers they carry stay on (docs/sfu.md "Relay between SFUs")
        Map<String, Integer> relayNeeds = new HashMap<>();
        for (PublishedTrack t : tracks.values()) for (TrackTap tap : t.taps) if (tap.highestLayer() >= 0) relayNeeds.merge(t.trackId, tap.highestLayer(), Math::max);
        controller.onNeeds(RELAYS, relayNeeds);
        for (DynacastDecision d : controller.evaluate(now / 1_000_000)) apply(d, now, events);
        for (var it = stopped.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!e.getValue().paused && (e.getKey().active(now) || now - e.getValue().resumedAtNanos > RESUME_GRACE_NANOS)) it.remove();
        }
        for (PublishedTrack t : tracks.values()) {
            Long at = announcedAt.get(t.trackId);
            if (at != null && controller.activeMax(t.trackId) < t.layers.length - 1 && now - at >= REANNOUNCE_NANOS) {
                announce(t, List.of(), List.of(), now, events);
            }
        }
    }

    private void apply(DynacastDecision d, long now, EventPublisher events) {
        PublishedTrack t = tracks.get(d.trackId());
        if (t == null) return;
        for (int i : d.paused()) {
            // the rate it had while sent; a rate that had already collapsed (the browser stopped it itself) is no
            // measure: 0 lets the allocator assume a nominal rate for its size
            long bps = t.layers[i].bitrateBps;
            stopped.put(t.layers[i], new Stopped(bps >= MIN_MEASURED_BPS ? bps : 0));
        }
        for (int i : d.resumed()) {
            Stopped s = stopped.get(t.layers[i]);
            if (s != null) { s.paused = false; s.resumedAtNanos = now; }
        }
        announce(t, d.paused(), d.resumed(), now, events);
    }

    private void announce(PublishedTrack t, List<Integer> paused, List<Integer> resumed, long now, EventPublisher events) {
        announcedAt.put(t.trackId, now);
        int max = controller.activeMax(t.trackId);
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("track_id", t.trackId).put("mid", t.mid)
                .put("max_spatial_layer", max).put("sequence", ++sequence);
        ArrayNode active = data.putArray("active_layers");
        ArrayNode rids = data.putArray("rids");
        for (Layer l : t.layers) {
            active.add(l.index <= max);
            rids.add(l.rid);
        }
        paused.forEach(data.putArray("paused")::add);
        resumed.forEach(data.putArray("resumed")::add);
        Participant owner = t.owner;
        events.publish(owner.publishEventsUrl, SfuEvent.PUBLISHER_LAYERS, meeting.id, owner.id, owner.publishGeneration, data);
    }

    /**
     * The layer the tile-size rule needs for a subscriber without an allocator: the largest whose known size fits
     * the tile, else the smallest; every layer while some size is still unknown (nothing is paused on a guess).
     */
    private int tileLayer(Slot s, long now) {
        PublishedTrack t = s.track;
        int best = -1, smallest = -1;
        for (Layer l : t.layers) {
            if (!l.active(now) && stoppedCost(l) < 0) continue;
            if (l.width == 0) return t.layers.length - 1;
            if (smallest < 0 || l.width < t.layers[smallest].width) smallest = l.index;
            if (l.width <= s.maxWidth && l.height <= s.maxHeight && (best < 0 || l.width > t.layers[best].width)) best = l.index;
        }
        return best >= 0 ? best : smallest;
    }

    /** For GET /state: per dynacast track of {@code publisher}, the highest layer it is told to send. */
    Map<String, Integer> stateOf(Participant publisher) {
        Map<String, Integer> r = new LinkedHashMap<>();
        for (PublishedTrack t : tracks.values()) if (t.owner == publisher) r.put(t.trackId, controller.activeMax(t.trackId));
        return r;
    }
}
