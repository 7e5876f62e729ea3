package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.platform.internal.SfuEvent;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.speaker.AudioSlotPlan;
import dev.parley.sfu.speaker.TopNAudioSelector;

import java.util.ArrayList;
import java.util.List;

/**
 * Top-N audio of one meeting (docs/sfu.md "Top-N audio"): each receiver's audio slots carry only the meeting's N
 * loudest speakers plus the ones it pinned. {@link TopNAudioSelector} decides who is held from the audio levels,
 * {@link AudioSlotPlan} which speaker each receiver's slot carries; this class moves the slots' tracks accordingly
 * (a slot that changes speaker keeps its SSRC and continues its sequence numbers and timestamps: {@link Slot#switchTo})
 * and tells the receiver's client with a {@code slot_assignments} event (the whole map) or, if it reads deltas, a
 * {@code slot_delta} of the moved slots ({@link SlotNotice}). Media thread only.
 */
final class AudioTopN {
    /** Level assumed for packets of a track without the audio-level extension: just "speech", never louder. */
    static final int LEVEL_WITHOUT_EXTENSION = 60;
    private final Meeting meeting;
    final TopNAudioSelector selector = new TopNAudioSelector(TopNAudioSelector.DEFAULT_N);
    /** Numbers the slot_assignments notices (a client keeps the newest). */
    private long sequence;

    AudioTopN(Meeting meeting) { this.meeting = meeting; }

    int n() { return selector.n(); }

    /** The meeting's N (from the controller's transport request); re-plans every receiver when it changed. */
    void setN(int n, EventPublisher events) {
        if (n == selector.n()) return;
        long now = System.nanoTime();
        selector.setN(n, now / 1_000_000);
        replanAll(now, events);
    }

    /** A published audio track joins the candidates; returns its selector index. */
    int register(Participant p) { return selector.register(p.id); }

    /** The speaker's audio is gone (unpublished or left): its slots are re-planned. */
    void unregister(Participant p, EventPublisher events) {
        p.audioSlot = -1;
        selector.unregister(p.id);
        replanAll(System.nanoTime(), events);
    }

    /**
     * Per audio packet (before it is forwarded): feeds the level; when this packet took the speaker into the held
     * set or made a held speaker start talking, every receiver is re-planned now, so this very packet already
     * reaches its new slots.
     */
    void onLevel(Participant p, int level, long nowNanos, EventPublisher events) {
        if (selector.onLevel(p.audioSlot, level, nowNanos / 1_000_000)) replanAll(nowNanos, events);
    }

    /** Media timer: a held speaker started or stopped talking (its envelope crossed the threshold) → re-plan. */
    void tick(long nowNanos, EventPublisher events) {
        if (selector.activityChanged(nowNanos / 1_000_000)) replanAll(nowNanos, events);
    }

    /** Every receiver of the meeting; the meeting-wide ranking is computed once for all of them. */
    void replanAll(long nowNanos, EventPublisher events) {
        Ranking ranking = ranking(nowNanos);
        for (Participant sub : meeting.participants.values()) replan(sub, ranking, events, true);
    }

    /** The held speakers loudest first and those of them talking now: the same for every receiver at one instant. */
    private record Ranking(List<String> ranked, List<String> active) {}

    private Ranking ranking(long nowNanos) {
        long nowMs = nowNanos / 1_000_000;
        List<String> ranked = selector.ranked(nowMs);
        List<String> active = new ArrayList<>(ranked.size());
        for (String id : ranked) if (selector.isActive(id, nowMs)) active.add(id);
        return new Ranking(ranked, active);
    }

    /**
     * Moves {@code sub}'s audio slots to their planned speakers. With {@code notify} the client gets the whole slot
     * map as a {@code slot_assignments} event when anything moved (a transport answer carries it already).
     */
    void replan(Participant sub, long nowNanos, EventPublisher events, boolean notify) {
        replan(sub, ranking(nowNanos), events, notify);
    }

    private void replan(Participant sub, Ranking ranking, EventPublisher events, boolean notify) {
        List<Slot> audio = null;
        for (Slot s : sub.slots) {
            if (s.video) continue;
            if (audio == null) audio = new ArrayList<>(4);
            audio.add(s);
        }
        if (audio == null) return; // a publisher-only participant: most of a big meeting's re-plan, so no garbage
        String[] current = new String[audio.size()];
        for (int i = 0; i < current.length; i++) current[i] = audio.get(i).track == null ? null : audio.get(i).track.owner.id;
        if (RECORDER.test(sub.id)) {
            moveSlots(sub, audio, everyoneFor(sub, current), events, notify);
            return;
        }
        String[] next = AudioSlotPlan.plan(current, selector.n(), ranking.ranked(), ranking.active(), sub.id, pinnedSpeakers(sub));
        moveSlots(sub, audio, next, events, notify);
    }

    /** The audio publishers {@code sub} pinned a track of (a scan of the meeting only when it pinned anything). */
    private List<String> pinnedSpeakers(Participant sub) {
        if (sub.pinned.isEmpty()) return List.of();
        List<String> pinned = new ArrayList<>();
        for (Participant q : meeting.participants.values()) {
            if (q == sub || audioTrack(q) == null) continue;
            for (PublishedTrack t : q.tracksByMid.values()) if (sub.pinned.contains(t.trackId)) { pinned.add(q.id); break; }
        }
        return pinned;
    }

    /**
     * A recording must carry every voice, not the loudest N: a recorder (the controller names its participants
     * {@code recorder:<job>:<generation>}, docs/internal-api.md) gets every audio publisher on its slots, those it
     * already has kept where they are, the rest by id.
     */
    private static final java.util.function.Predicate<String> RECORDER = id -> id.startsWith("recorder:");

    private String[] everyoneFor(Participant sub, String[] current) {
        String[] next = new String[current.length];
        java.util.Set<String> placed = new java.util.HashSet<>();
        for (int i = 0; i < current.length; i++) {
            Participant q = current[i] == null ? null : meeting.participants.get(current[i]);
            if (q != null && q != sub && audioTrack(q) != null) { next[i] = current[i]; placed.add(current[i]); }
        }
        List<String> rest = new ArrayList<>();
        for (Participant q : meeting.participants.values()) if (q != sub && audioTrack(q) != null && !placed.contains(q.id)) rest.add(q.id);
        rest.sort(null);
        int r = 0;
        for (int i = 0; i < next.length && r < rest.size(); i++) if (next[i] == null) next[i] = rest.get(r++);
        return next;
    }

    private void moveSlots(Participant sub, List<Slot> audio, String[] next, EventPublisher events, boolean notify) {
        boolean tell = notify && sub.subscribe != null && sub.subscribeEventsUrl != null;
        ObjectNode notice = move(sub, audio, next, tell);
        if (notice != null) {
            events.publish(sub.subscribeEventsUrl, sub.slotDeltas ? SfuEvent.SLOT_DELTA : SfuEvent.SLOT_ASSIGNMENTS,
                    meeting.id, sub.id, sub.subscribeGeneration, notice);
        }
    }

    /**
     * Moves {@code sub}'s audio slots onto the speakers {@code next} names; any move advances its slot version. With
     * {@code tell}, returns what its client is told when anything moved (null when nothing did): the moved slots
     * only ({@link SlotNotice#delta}) if it reads deltas, else the whole map as before.
     */
    ObjectNode move(Participant sub, List<Slot> audio, String[] next, boolean tell) {
        ArrayNode changes = null;
        boolean moved = false;
        for (int i = 0; i < next.length; i++) {
            Slot s = audio.get(i);
            PublishedTrack want = next[i] == null ? null : audioTrack(meeting.participants.get(next[i]));
            if (s.track == want) continue;
            if (s.track != null) { s.track.slots.remove(s); s.detach(); }
            if (want != null) { s.attach(want); want.slots.add(s); }
            moved = true;
            if (tell && sub.slotDeltas) {
                if (changes == null) changes = JsonNodeFactory.instance.arrayNode();
                SlotNotice.entry(changes, s);
            }
        }
        if (!moved) return null;
        long base = sub.slotVersion++;
        if (!tell) return null;
        return sub.slotDeltas ? SlotNotice.delta(++sequence, base, sub.slotVersion, changes) : SlotNotice.whole(++sequence, sub);
    }

    /** The participant's published audio track, or null. */
    static PublishedTrack audioTrack(Participant p) {
        if (p == null) return null;
        for (PublishedTrack t : p.tracksByMid.values()) if (!t.video) return t;
        return null;
    }
}
