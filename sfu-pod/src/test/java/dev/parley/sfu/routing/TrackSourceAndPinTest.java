package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.UpdateSubscriptionsRequest;
import dev.parley.sfu.grant.GrantState;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A publisher's declared source and a subscriber's pin reach the allocator: the internal API's JSON bodies
 * (parsed as {@code InternalApi} parses them) are applied to real routing objects, and an allocation round on
 * a tight estimate shows who gets the budget: a screen share before cameras, a pinned camera before the
 * active speaker. The grant's screen permission decides whether a screen track may be forwarded.
 */
class TrackSourceAndPinTest {
    private static final int SPEECH = 25, SILENCE = 127;              // RFC 6464 dBov
    private static final int[] L1T3 = {0, 2, 1, 2};
    private static final long SECOND = 1_000_000_000L;
    /** As InternalApi reads request bodies. */
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final Meeting meeting = new Meeting("m");
    private final Participant alice = new Participant("alice", meeting), bob = new Participant("bob", meeting),
            carol = new Participant("carol", meeting), sub = new Participant("sub", meeting);
    private final int aliceSpeaker = meeting.speakers.register("alice"), bobSpeaker = meeting.speakers.register("bob");
    private long now = 10 * SECOND;

    /** A three-layer simulcast video on {@code mid}: 180p 216 kbps at 30 fps of which T0 128 kbps (as SubscriberAllocationTest). */
    private PublishedTrack video(Participant owner, String mid, int ssrcBase) {
        PublishedTrack t = new PublishedTrack(owner, mid, true, "VP8", 96, 97, 90000, List.of("q", "h", "f"), 0);
        t.screen = owner.isScreen(mid, true);                            // as Router.applyPublishPlan does
        owner.tracksByMid.put(mid, t);
        int[] scale = {1, 3, 8};
        for (Layer l : t.layers) {
            l.ssrc = ssrcBase + l.index;
            l.width = 320 << l.index;
            l.height = 180 << l.index;
            l.updateBitrate(now - SECOND);
            for (int p = 0; p < 30; p++) {
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
        t.slots.add(s);
        sub.slots.add(s);
        return s;
    }

    private void bobSpeaks() {
        for (long t = 0; t < 2_000; t += 20) {
            long ms = now / 1_000_000;
            meeting.speakers.onAudioLevel(aliceSpeaker, SILENCE, ms);
            meeting.speakers.onAudioLevel(bobSpeaker, SPEECH, ms);
            if (t % 300 == 0) meeting.speakers.evaluate(ms);
            now += 20_000_000L;
        }
        assertThat(meeting.speakers.rank("bob")).isZero();
        assertThat(meeting.speakers.rank("alice")).isNegative();
    }

    private void subscribe(String json) throws Exception {
        UpdateSubscriptionsRequest req = JSON.readValue(json, UpdateSubscriptionsRequest.class);
        sub.applySubscriptions(req.tracks());
    }

    private void allocate(PublishedTrack... tracks) {
        now += SubscriberAllocation.INTERVAL_NANOS;
        for (PublishedTrack t : tracks) for (Layer l : t.layers) l.lastPacketNanos = now;
        sub.allocation.run(sub, now, (layer, t) -> { });
    }

    private static String entry(String trackId, boolean pinned) {
        return "{\"track_id\":\"" + trackId + "\",\"max_width\":1280,\"max_height\":720" + (pinned ? ",\"pinned\":true" : "") + "}";
    }

    @Test
    void aPinnedCameraGetsTheBudgetBeforeTheActiveSpeaker() throws Exception {
        PublishedTrack a = video(alice, "1", 100), b = video(bob, "1", 200);
        Slot sa = slot(a, "1"), sb = slot(b, "2");
        sub.resetCongestionControl();
        sub.bwe.onRemb(360_000, now / 1000);
        bobSpeaks();
        subscribe("{\"controller_epoch\":1,\"tracks\":[" + entry(a.trackId, false) + "," + entry(b.trackId, false) + "]}");
        allocate(a, b);
        // 360 kbps: 180p for both; the speaker (bob) at full frame rate (216k), alice only at T0 (128k)
        assertThat(sb.temporal.target).isEqualTo(TemporalFilter.ALL);
        assertThat(sa.temporal.target).isZero();

        subscribe("{\"controller_epoch\":1,\"tracks\":[" + entry(a.trackId, true) + "," + entry(b.trackId, false) + "]}");
        assertThat(sub.pinned).containsExactly(a.trackId);
        allocate(a, b);
        assertThat(sa.temporal.target).as("pinned alice comes before speaking bob").isEqualTo(TemporalFilter.ALL);
        assertThat(sb.temporal.target).isZero();

        // a later entry for alice without "pinned" unpins her: bob, the speaker, is first again
        subscribe("{\"controller_epoch\":1,\"tracks\":[" + entry(a.trackId, false) + "]}");
        assertThat(sub.pinned).isEmpty();
        allocate(a, b);
        assertThat(sb.temporal.target).isEqualTo(TemporalFilter.ALL);
        assertThat(sa.temporal.target).isZero();
    }

    @Test
    void aScreenShareGetsTheBudgetBeforeCameras() throws Exception {
        PublishedTrack a = video(alice, "1", 100), b = video(bob, "1", 200);
        CreateTransportRequest offer = JSON.readValue("{\"meeting_id\":\"m\",\"participant_id\":\"carol\",\"kind\":\"publish\","
                + "\"sdp_offer\":\"v=0\",\"sources\":[{\"mid\":\"0\",\"source\":\"microphone\"},{\"mid\":\"1\",\"source\":\"camera\"},"
                + "{\"mid\":\"2\",\"source\":\"screen\"}]}", CreateTransportRequest.class);
        assertThat(PublishSource.valid(offer.sources())).isTrue();
        carol.applyPublishSources(offer.sources());
        PublishedTrack c = video(carol, "2", 300);
        assertThat(c.screen).isTrue();
        assertThat(c.source()).isEqualTo("screen");
        Slot sa = slot(a, "1"), sb = slot(b, "2"), sc = slot(c, "3");
        sub.resetCongestionControl();
        sub.bwe.onRemb(360_000, now / 1000);
        bobSpeaks();
        subscribe("{\"controller_epoch\":1,\"tracks\":[" + entry(a.trackId, true) + "," + entry(b.trackId, false) + ","
                + entry(c.trackId, false) + "]}");
        allocate(a, b, c);
        // the screen first at full frame rate (216k), then pinned alice at T0 (128k); speaking bob gets what is left
        assertThat(sc.temporal.target).as("screen share").isEqualTo(TemporalFilter.ALL);
        assertThat(sa.temporal.target).as("pinned camera after the screen").isZero();
        var allocation = sub.allocation.last();
        assertThat(allocation.track(c.trackId).forwarding()).isTrue();
        assertThat(allocation.track(b.trackId).forwarding()).as("the speaker's camera does not fit").isFalse();

        // the same publish offer without a screen declaration: carol's video is a camera, unpinned and silent: last
        carol.applyPublishSources(List.of(new PublishSource("2", "camera")));
        assertThat(c.screen).isFalse();
        allocate(a, b, c);
        assertThat(sub.allocation.last().track(c.trackId).forwarding()).as("carol's camera comes last").isFalse();
        assertThat(sa.temporal.target).isEqualTo(TemporalFilter.ALL);
    }

    @Test
    void unknownSourcesAreRefusedAndAnOfferWithoutSourcesKeepsTheDeclaration() {
        assertThat(PublishSource.valid(List.of(new PublishSource("2", "window")))).isFalse();
        assertThat(PublishSource.valid(List.of(new PublishSource(null, "screen")))).isFalse();
        assertThat(PublishSource.valid(null)).isTrue();
        carol.applyPublishSources(List.of(new PublishSource("2", "screen")));
        carol.applyPublishSources(null);
        assertThat(carol.isScreen("2", true)).isTrue();
        assertThat(carol.isScreen("2", false)).as("an audio section is never a screen").isFalse();
        assertThat(carol.isScreen("1", true)).isFalse();
    }

    @Test
    void aScreenTrackNeedsTheScreenPermission() {
        carol.applyPublishSources(List.of(new PublishSource("2", "screen")));
        PublishedTrack camera = video(carol, "1", 100), screen = video(carol, "2", 300);
        long expires = now + 60 * SECOND;
        GrantState cameraOnly = new GrantState(1, 1, true, true, false, true, expires);
        GrantState both = new GrantState(1, 2, true, true, true, true, expires);
        GrantState screenOnly = new GrantState(1, 3, false, false, true, true, expires);
        assertThat(Router.mayPublish(cameraOnly, camera, now)).isTrue();
        assertThat(Router.mayPublish(cameraOnly, screen, now)).isFalse();
        assertThat(Router.mayPublish(both, screen, now)).isTrue();
        assertThat(Router.mayPublish(screenOnly, screen, now)).isTrue();
        assertThat(Router.mayPublish(screenOnly, camera, now)).isFalse();
        assertThat(Router.mayPublish(both, screen, expires + 1)).as("expired").isFalse();
    }
}
