package dev.parley.sfu.routing;

import dev.parley.media.rtp.RtpPacket;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Top-N audio on real routing objects: a receiver with two audio slots in a meeting of four speakers (N = 2).
 * Speakers' packets go through {@link AudioTopN#onLevel} as {@code Router.route} feeds them, then to the slots
 * their track is mapped onto, numbered as {@link Slot#forward} numbers audio (a track change is a
 * {@link Slot#switchTo}). The slot that changes speaker keeps its SSRC and its sequence numbers and timestamps
 * continue: +1 per packet, the timestamp advancing with the time between packets.
 */
class AudioTopNTest {
    private static final long MS = 1_000_000L;
    private final Meeting meeting = new Meeting("m");
    private final Participant receiver = participant("r");
    private final Map<String, Integer> seq = new HashMap<>();
    private final Map<String, Long> ts = new HashMap<>();
    /** What the receiver got per slot mid: {ssrc, seq, ts, speaker} for each packet. */
    private final Map<String, List<long[]>> got = new HashMap<>();
    private final Map<String, List<String>> from = new HashMap<>();

    private Participant participant(String id) {
        Participant p = new Participant(id, meeting);
        meeting.participants.put(id, p);
        return p;
    }

    private void publishAudio(Participant p) {
        PublishedTrack t = new PublishedTrack(p, "0", false, "opus", 111, 0, 48000, List.of(), 1);
        p.tracksByMid.put("0", t);
        p.audioSlot = meeting.audio.register(p);
        seq.put(p.id, p.id.hashCode() & 0xFFFF);
        ts.put(p.id, (long) p.id.hashCode() * 7919 & 0xFFFFFFFFL);
    }

    /** One 20 ms Opus packet of {@code p} at {@code level} dBov, as the router handles it. */
    private void packet(Participant p, int level, long now) {
        int s = seq.merge(p.id, 1, (a, b) -> (a + b) & 0xFFFF);
        long t = ts.merge(p.id, 960L, (a, b) -> (a + b) & 0xFFFFFFFFL);
        byte[] b = new byte[32];
        b[0] = (byte) 0x80; b[1] = 111;
        RtpPacket.setSequence(b, 0, s);
        RtpPacket.setTimestamp(b, 0, t);
        meeting.audio.onLevel(p, level, now, null);
        PublishedTrack tr = AudioTopN.audioTrack(p);
        for (Slot slot : new ArrayList<>(tr.slots)) {
            Layer layer = tr.layers[0];
            if (layer != slot.current) slot.switchTo(layer, b, 0, null, now);           // as Slot.forward for audio
            int outSeq = (s + slot.seqOffset) & 0xFFFF;
            long outTs = (t + slot.tsOffset) & 0xFFFFFFFFL;
            slot.lastOutSeq = outSeq; slot.lastOutTs = outTs; slot.lastOutNanos = now; slot.packetsSent++;
            got.computeIfAbsent(slot.mid, k -> new ArrayList<>()).add(new long[]{slot.ssrc, outSeq, outTs, now});
            from.computeIfAbsent(slot.mid, k -> new ArrayList<>()).add(p.id);
        }
    }

    @Test
    void aLouderNewSpeakerTakesASlotOnItsFirstPacketAndTheSlotContinuesSeamlessly() {
        Participant a = participant("a"), b = participant("b"), c = participant("c"), d = participant("d");
        for (Participant p : List.of(a, b, c, d)) publishAudio(p);
        receiver.slots.add(new Slot(receiver, "0", false, 0x1111, 111, 0, 0));
        receiver.slots.add(new Slot(receiver, "1", false, 0x2222, 111, 0, 0));
        receiver.slots.add(new Slot(receiver, "2", false, 0x3333, 111, 0, 0));   // an old client's extra slot
        meeting.audio.setN(2, null);

        long now = 1_000 * MS;
        for (int i = 0; i < 100; i++, now += 20 * MS) {           // a, b, c talk; d is silent (and not held: no room)
            packet(a, 30, now); packet(b, 30, now); packet(c, 30, now); packet(d, 127, now);
        }
        assertThat(slotSpeakers()).containsExactly("a", "b", null);
        for (int i = 0; i < 150; i++, now += 20 * MS) {           // a stops; b and c go on
            packet(a, 127, now); packet(b, 30, now); packet(c, 30, now);
        }
        assertThat(slotSpeakers()).as("sticky: a is quiet but still held").containsExactly("a", "b", null);
        int before = got.get("0").size();
        long switchAt = now;
        packet(d, 10, now);                                         // d's first word, louder than everyone
        assertThat(slotSpeakers()).containsExactly("d", "b", null);
        assertThat(from.get("0").get(before)).as("the first loud packet itself is forwarded").isEqualTo("d");
        now += 20 * MS;
        for (int i = 0; i < 10; i++, now += 20 * MS) { packet(d, 10, now); packet(b, 30, now); packet(a, 127, now); }

        List<long[]> slot0 = got.get("0");
        for (int i = 1; i < slot0.size(); i++) {
            long[] p = slot0.get(i - 1), q = slot0.get(i);
            assertThat(q[0]).as("SSRC stays the slot's").isEqualTo(0x1111);
            assertThat(q[1]).as("packet %d: sequence +1 (no gap, no jump)", i).isEqualTo((p[1] + 1) & 0xFFFF);
            long dts = (q[2] - p[2]) & 0xFFFFFFFFL;
            long dtMs = (q[3] - p[3]) / MS;
            assertThat(dts).as("packet %d: timestamp follows the clock (%d ms)", i, dtMs).isBetween(dtMs * 48 - 48, dtMs * 48 + 48);
        }
        assertThat(from.get("0").subList(before, slot0.size())).containsOnly("d");
        assertThat(got.get("2")).as("slots beyond N stay silent").isNull();
        assertThat(switchAt).isPositive();
    }

    @Test
    void aPinnedSpeakerIsAlwaysHeardAndLeavingFreesItsSlot() {
        Participant a = participant("a"), b = participant("b"), c = participant("c");
        for (Participant p : List.of(a, b, c)) publishAudio(p);
        receiver.slots.add(new Slot(receiver, "0", false, 0x1111, 111, 0, 0));
        meeting.audio.setN(1, null);
        long now = 1_000 * MS;
        for (int i = 0; i < 50; i++, now += 20 * MS) { packet(a, 20, now); packet(b, 40, now); packet(c, 127, now); }
        assertThat(slotSpeakers()).containsExactly("a");
        receiver.pinned.add("c:1");                                 // pinned c's camera: c's voice comes with it
        c.tracksByMid.put("1", new PublishedTrack(c, "1", true, "VP8", 96, 0, 90000, List.of(), 0));
        meeting.audio.replan(receiver, now, null, false);
        assertThat(slotSpeakers()).containsExactly("c");
        receiver.pinned.clear();
        meeting.audio.replan(receiver, now, null, false);
        assertThat(slotSpeakers()).containsExactly("a");
        a.tracksByMid.remove("0").slots.forEach(Slot::detach);   // a unpublishes (as MeetingControl.unpublish)
        meeting.audio.unregister(a, null);
        assertThat(slotSpeakers()).containsExactly("b");
    }

    private List<String> slotSpeakers() {
        List<String> out = new ArrayList<>();
        for (Slot s : receiver.slots) out.add(s.track == null ? null : s.track.owner.id);
        return out;
    }

    @Test
    void aRecorderHearsEverySpeakerNotTheLoudestN() {
        Participant recorder = participant("recorder:job-1:1");
        Participant a = participant("a"), b = participant("b"), c = participant("c");
        for (Participant p : List.of(a, b, c)) publishAudio(p);
        for (int i = 0; i < 4; i++) recorder.slots.add(new Slot(recorder, "r" + i, false, 0x4000 + i, 111, 0, 0));
        meeting.audio.setN(1, null);
        long now = 1_000 * MS;
        for (int i = 0; i < 50; i++, now += 20 * MS) { packet(a, 20, now); packet(b, 40, now); packet(c, 127, now); }
        meeting.audio.replan(recorder, now, null, false);
        List<String> heard = new ArrayList<>();
        for (Slot s : recorder.slots) heard.add(s.track == null ? null : s.track.owner.id);
        assertThat(heard).as("a recording carries every voice").containsExactly("a", "b", "c", null);
    }
}
