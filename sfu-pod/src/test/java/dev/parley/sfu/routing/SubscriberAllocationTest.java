package dev.parley.sfu.routing;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SFU's allocation round on real routing objects (meeting, publishers' simulcast layers measured from VP8
 * temporal-layer traffic, the meeting's active-speaker detector fed audio levels, a subscriber's estimator):
 * the temporal layer the allocator picks reaches the slot's filter, the active speaker gets the budget first,
 * and the subscriber's frame-rate limit selects a temporal layer.
 */
class SubscriberAllocationTest {
    private static final int SPEECH = 25, SILENCE = 127;              // RFC 6464 dBov
    private static final int[] L1T3 = {0, 2, 1, 2};
    private static final long SECOND = 1_000_000_000L;

    private final Meeting meeting = new Meeting("m");
    private final Participant alice = new Participant("alice", meeting), bob = new Participant("bob", meeting);
    private final Participant sub = new Participant("sub", meeting);
    private final int aliceSpeaker = meeting.speakers.register("alice"), bobSpeaker = meeting.speakers.register("bob");
    private final List<Layer> keyframesAsked = new ArrayList<>();
    private long now = 10 * SECOND;

    /**
     * A three-layer simulcast camera whose layers each sent 1 s of L1T3 at 30 fps: 180p 216 kbps, of which T0
     * 128 kbps (8 pictures of 2000 bytes), T0+T1 156 kbps; 360p × 3, 720p × 8.
     */
    private PublishedTrack camera(Participant owner, int ssrcBase) {
        PublishedTrack t = new PublishedTrack(owner, "v", true, "VP8", 96, 97, 90000, List.of("q", "h", "f"), 0);
        int[] scale = {1, 3, 8};
        for (Layer l : t.layers) {
            l.ssrc = ssrcBase + l.index;
            l.width = 320 << l.index;
            l.height = 180 << l.index;
            l.updateBitrate(now - SECOND);
            for (int p = 0; p < 30; p++) {                            // 30 pictures: 240 kbps × scale
                int tid = L1T3[p % 4];
                int bytes = (tid == 0 ? 2000 : 500) * scale[l.index];
                l.onTemporal(tid, bytes, true);
                l.bytesReceived += bytes;
            }
            l.lastPacketNanos = now;
            l.updateBitrate(now);
        }
        return t;
    }

    private Slot slot(PublishedTrack t, String mid) {
        Slot s = new Slot(sub, mid, true, mid.hashCode(), 96, 0, 0);
        s.attach(t);
        s.maxWidth = 1280;
        s.maxHeight = 720;
        t.slots.add(s);
        sub.slots.add(s);
        return s;
    }

    private void speak(Participant who, long ms) {
        int[] slots = {aliceSpeaker, bobSpeaker};
        for (long t = 0; t < ms; t += 20) {
            long ms0 = now / 1_000_000;
            meeting.speakers.onAudioLevel(slots[0], who == alice ? SPEECH : SILENCE, ms0);
            meeting.speakers.onAudioLevel(slots[1], who == bob ? SPEECH : SILENCE, ms0);
            if (t % 300 == 0) meeting.speakers.evaluate(ms0);
            now += 20_000_000L;
        }
    }

    @Test
    void measuredTemporalLayersAndTheSpeakerDecideWhoGetsTheFrameRate() {
        PublishedTrack a = camera(alice, 100), b = camera(bob, 200);
        Layer l = a.layers[0];
        assertThat(l.temporalLayers).isEqualTo(3);
        assertThat(l.bitrateBps).isEqualTo(216_000);
        assertThat(l.temporalFps[0]).isCloseTo(8, org.assertj.core.data.Offset.offset(0.1));   // 8 of 30 pictures are T0
        assertThat(l.temporalFps[1]).isCloseTo(15, org.assertj.core.data.Offset.offset(0.1));
        assertThat(l.temporalFps[2]).isCloseTo(30, org.assertj.core.data.Offset.offset(0.1));
        assertThat(l.temporalSharePermille[0]).isEqualTo(592);
        assertThat(l.temporalSharePermille[1]).isEqualTo(722);
        Slot sa = slot(a, "1"), sb = slot(b, "2");
        sub.resetCongestionControl();
        sub.bwe.onRemb(360_000, now / 1000);

        speak(bob, 2_000);
        refresh(a, b);
        sub.allocation.run(sub, now, (layer, t) -> keyframesAsked.add(layer));
        assertThat(meeting.speakers.rank("bob")).isZero();
        // 360 kbps: both get the 180p layer; bob (speaking) at its full frame rate (216k), alice only at T0 (128k)
        assertThat(sb.target).isSameAs(b.layers[0]);
        assertThat(sb.temporal.target).isEqualTo(TemporalFilter.ALL);
        assertThat(sa.target).isSameAs(a.layers[0]);
        assertThat(sa.temporal.target).isZero();

        speak(alice, 4_000);
        refresh(a, b);
        sub.allocation.run(sub, now, (layer, t) -> keyframesAsked.add(layer));
        assertThat(meeting.speakers.rank("alice")).isZero();
        assertThat(sa.temporal.target).as("alice speaks now").isEqualTo(TemporalFilter.ALL);
        assertThat(sb.temporal.target).isZero();
    }

    @Test
    void frameRateLimitFromSubscribeSelectsATemporalLayer() {
        PublishedTrack a = camera(alice, 100);
        Slot s = slot(a, "1");
        sub.resetCongestionControl();
        sub.bwe.onRemb(5_000_000, now / 1000);
        sub.wanted.put(a.trackId, new int[]{1280, 720, 15});
        sub.allocation.run(sub, now, (layer, t) -> keyframesAsked.add(layer));
        assertThat(s.target).isSameAs(a.layers[2]);
        assertThat(s.temporal.target).as("15 fps of 30: T1").isEqualTo(1);
        sub.wanted.put(a.trackId, new int[]{1280, 720, 30});
        now += SubscriberAllocation.INTERVAL_NANOS;
        refresh(a);
        sub.allocation.run(sub, now, (layer, t) -> keyframesAsked.add(layer));
        assertThat(s.temporal.target).isEqualTo(TemporalFilter.ALL);
    }

    @Test
    void pausedVideoResumesOnlyWithRoomForItsKeyframeHeldTwoSeconds() {
        PublishedTrack a = camera(alice, 100);
        Slot s = slot(a, "1");
        sub.resetCongestionControl();
        // 60 kbps: not even 180p TL0 (128 kbps) fits; paused after the grace time
        long pausedAt = -1;
        for (int i = 0; i < 20 && pausedAt < 0; i++) {
            sub.bwe.onRemb(60_000, now / 1000);
            step(a);
            if (s.paused) pausedAt = now;
        }
        assertThat(pausedAt).as("paused").isPositive();
        // 200 kbps: TL0 fits, but not TL0 plus as much again for its keyframe: stays paused
        for (int i = 0; i < 50; i++) {
            sub.bwe.onRemb(200_000, now / 1000);
            step(a);
            assertThat(s.paused).as("paused at 200 kbps after %d ms", i * 200).isTrue();
        }
        // 2 Mbps: resumed once the budget followed (3 s hold) and the room held for 2 s more, then stays on
        long raisedAt = now, resumedAt = -1;
        for (int i = 0; i < 60; i++) {
            sub.bwe.onRemb(2_000_000, now / 1000);
            step(a);
            if (!s.paused && resumedAt < 0) resumedAt = now;
            if (resumedAt >= 0) assertThat(s.paused).as("no pause after resuming").isFalse();
        }
        assertThat(resumedAt).as("resumed").isPositive();
        assertThat(resumedAt - raisedAt).isBetween(SubscriberAllocation.RESUME_HOLD_NANOS, 8 * SECOND);
        assertThat(s.waitingKeyframe).as("resumes at a keyframe").isTrue();
    }

    @Test
    void aRestartedTopLayerMeasuredCheapIsNotTakenForItsPrice() {
        PublishedTrack a = camera(alice, 100);
        Slot s = slot(a, "1");
        // the 720p encoding restarted (the browser stopped it for 5 s and resumed it): one interval with a few pictures
        Layer top = a.layers[2];
        for (int i = 0; i < 5; i++) top.updateBitrate(now += SECOND);
        for (int p = 0; p < 4; p++) {
            int tid = L1T3[p % 4];
            int bytes = tid == 0 ? 3000 : 1000;
            top.onTemporal(tid, bytes, true);
            top.bytesReceived += bytes;
        }
        top.updateBitrate(now + SECOND);
        now += SECOND;
        assertThat(top.bitrateBps).as("720p as measured").isLessThan(a.layers[1].bitrateBps / 5);
        sub.resetCongestionControl();
        sub.bwe.onRemb(250_000, now / 1000);
        refresh(a);
        sub.allocation.run(sub, now, (layer, t) -> keyframesAsked.add(layer));
        // 720p costs at least what 360p costs (648 kbps): at 250 kbps the subscriber stays on 180p
        assertThat(s.target).isSameAs(a.layers[0]);
    }

    /** One allocation round 200 ms later, the publisher still sending. */
    private void step(PublishedTrack... tracks) {
        now += SubscriberAllocation.INTERVAL_NANOS;
        refresh(tracks);
        sub.allocation.run(sub, now, (layer, t) -> keyframesAsked.add(layer));
    }

    /** The publishers kept sending (layers stay active at the new time). */
    private void refresh(PublishedTrack... tracks) {
        for (PublishedTrack t : tracks) for (Layer l : t.layers) l.lastPacketNanos = now;
    }
}
