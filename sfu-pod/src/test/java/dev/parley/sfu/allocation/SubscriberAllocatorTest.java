package dev.parley.sfu.allocation;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SubscriberAllocatorTest {

    private static final SubscribedTrack AUDIO = SubscribedTrack.audio("a1", 40_000);
    private static final SubscribedTrack CAM = Layers.cam("v1", 1280, 720);

    @Test
    void constrainedSubscriberGetsTheLowLayerWhileAnUnconstrainedOneKeepsTheHighLayer() {
        SubscriberAllocator slow = new SubscriberAllocator();
        SubscriberAllocator fast = new SubscriberAllocator();
        TrackAllocation low = slow.allocate(0, 300_000, List.of(AUDIO, CAM)).track("v1");
        TrackAllocation high = fast.allocate(0, 10_000_000, List.of(AUDIO, CAM)).track("v1");
        assertThat(low.state()).isEqualTo(TrackState.FORWARDING);
        assertThat(low.spatial()).isZero();
        assertThat(low.temporal()).as("full frame rate on the low layer").isEqualTo(2);
        assertThat(low.deficient()).isTrue();
        assertThat(high.spatial()).isEqualTo(2);
        assertThat(high.temporal()).isEqualTo(2);
        assertThat(high.deficient()).isFalse();
    }

    @Test
    void at50kbpsVideoPausesAndAudioIsKept() {
        SubscriberAllocator alloc = new SubscriberAllocator();
        alloc.allocate(0, 2_000_000, List.of(AUDIO, CAM));
        AllocationResult r = alloc.allocate(100, 50_000, List.of(AUDIO, CAM));
        assertThat(r.track("a1").state()).isEqualTo(TrackState.FORWARDING);
        assertThat(r.track("v1").state()).isEqualTo(TrackState.PAUSED_BANDWIDTH);
        assertThat(r.events()).containsExactly(new AllocationEvent(AllocationEvent.Type.PAUSED, "v1", -1, -1));
        assertThat(r.allocatedBps()).isEqualTo(40_000);
        // audio is kept even when the estimate is below the audio bitrate itself
        assertThat(alloc.allocate(200, 10_000, List.of(AUDIO, CAM)).track("a1").forwarding()).isTrue();
    }

    @Test
    void stepsDownAtOnceButUpOnlyAfterTheEstimateHeld() {
        SubscriberAllocator alloc = new SubscriberAllocator(3_000);
        assertThat(alloc.allocate(0, 3_000_000, List.of(AUDIO, CAM)).track("v1").spatial()).isEqualTo(2);
        AllocationResult down = alloc.allocate(1_000, 300_000, List.of(AUDIO, CAM));
        assertThat(down.track("v1").spatial()).as("down at once").isZero();
        assertThat(down.keyframes()).containsExactly(new KeyframeNeed("v1", 0));

        assertThat(alloc.allocate(2_000, 3_000_000, List.of(AUDIO, CAM)).track("v1").spatial()).isZero();
        assertThat(alloc.allocate(4_000, 3_000_000, List.of(AUDIO, CAM)).track("v1").spatial())
                .as("2 s of a higher estimate is not enough").isZero();
        AllocationResult up = alloc.allocate(5_000, 3_000_000, List.of(AUDIO, CAM));
        assertThat(up.track("v1").spatial()).as("after 3 s it steps up").isEqualTo(2);
        assertThat(up.events()).containsExactly(new AllocationEvent(AllocationEvent.Type.LAYER_CHANGED, "v1", 2, 2));
        assertThat(up.keyframes()).containsExactly(new KeyframeNeed("v1", 2));
    }

    @Test
    void aFallingEstimateNeverStepsUpEvenWhenTheHoldRanOut() {
        // the browser test's transition to a 300 kbps link: budget 300 kbps, the estimate above it for 3 s while
        // it was still falling from a much higher value towards the new capacity
        SubscriberAllocator alloc = new SubscriberAllocator(3_000);
        alloc.allocate(0, 300_000, List.of(AUDIO, CAM));
        long[] falling = {6_300_000, 6_300_000, 6_300_000, 6_300_000, 6_300_000, 6_000_000, 5_500_000, 4_000_000,
                2_500_000, 1_800_000, 1_200_000, 1_000_000, 900_000, 738_000, 600_000, 450_000};
        long t = 0;
        for (long e : falling) {
            t += 200;
            AllocationResult r = alloc.allocate(t, e, List.of(AUDIO, CAM));
            assertThat(r.budgetBps()).as("budget at %d ms, estimate %d", t, e).isEqualTo(300_000);
            assertThat(r.track("v1").spatial()).isZero();
        }
        // once it stops falling (and held), the budget follows as before
        for (int i = 0; i < 20; i++) alloc.allocate(t += 200, 450_000, List.of(AUDIO, CAM));
        assertThat(alloc.allocate(t + 200, 450_000, List.of(AUDIO, CAM)).budgetBps()).isEqualTo(450_000);
    }

    @Test
    void aDipDuringTheHoldRestartsItFromTheLowerValue() {
        SubscriberAllocator alloc = new SubscriberAllocator(3_000);
        alloc.allocate(0, 300_000, List.of(AUDIO, CAM));
        alloc.allocate(1_000, 3_000_000, List.of(AUDIO, CAM));
        alloc.allocate(2_000, 700_000, List.of(AUDIO, CAM)); // still above budget, but only 700k
        AllocationResult r = alloc.allocate(4_100, 3_000_000, List.of(AUDIO, CAM));
        assertThat(r.budgetBps()).as("the budget only rose to what held throughout").isEqualTo(700_000);
        assertThat(r.track("v1").spatial()).isEqualTo(1);
    }

    @Test
    void resumesAfterPauseWithAnEventAndAKeyframe() {
        SubscriberAllocator alloc = new SubscriberAllocator(1_000);
        alloc.allocate(0, 50_000, List.of(AUDIO, CAM));
        alloc.allocate(500, 400_000, List.of(AUDIO, CAM));
        AllocationResult r = alloc.allocate(1_600, 400_000, List.of(AUDIO, CAM));
        assertThat(r.track("v1").forwarding()).isTrue();
        assertThat(r.events()).extracting(AllocationEvent::type).containsExactly(AllocationEvent.Type.RESUMED);
        assertThat(r.keyframes()).containsExactly(new KeyframeNeed("v1", r.track("v1").spatial()));
    }

    @Test
    void frameRateIsDroppedBeforeResolution() {
        SubscriberAllocator alloc = new SubscriberAllocator();
        // 1.2 Mbps - 40k audio: 720p30 (1.7M) does not fit, 720p15 (1.1M) does
        TrackAllocation a = alloc.allocate(0, 1_200_000, List.of(AUDIO, CAM)).track("v1");
        assertThat(a.spatial()).isEqualTo(2);
        assertThat(a.temporal()).isEqualTo(1);
        // but a camera does not go down to 7.5 fps at 720p: 800k picks 360p30 over 720p7.5
        TrackAllocation b = new SubscriberAllocator().allocate(0, 800_000, List.of(AUDIO, CAM)).track("v1");
        assertThat(b.spatial()).isEqualTo(1);
        assertThat(b.temporal()).isEqualTo(2);
    }

    @Test
    void screenShareKeepsResolutionDownToItsLowestFrameRate() {
        SubscribedTrack screen = SubscribedTrack.video("s1", TrackKind.SCREEN, 1280, 720, Layers.camera());
        TrackAllocation a = new SubscriberAllocator().allocate(0, 800_000, List.of(AUDIO, screen)).track("s1");
        assertThat(a.spatial()).isEqualTo(2);
        assertThat(a.temporal()).isZero();
    }

    @Test
    void budgetGoesToScreenThenPinnedThenSpeakerThenBiggestTile() {
        SubscribedTrack screen = SubscribedTrack.video("screen", TrackKind.SCREEN, 1280, 720, Layers.camera());
        SubscribedTrack pinned = Layers.cam("pinned", 1280, 720).withPinned(true);
        SubscribedTrack speaker = Layers.cam("speaker", 1280, 720).withSpeakerRank(0);
        SubscribedTrack other = Layers.cam("other", 1280, 720);
        AllocationResult r = new SubscriberAllocator().allocate(0, 3_000_000,
                List.of(other, speaker, AUDIO, pinned, screen));
        assertThat(r.tracks()).extracting(TrackAllocation::trackId)
                .containsExactly("a1", "screen", "pinned", "speaker", "other");
        // every video track first gets its lowest point, then the surplus goes in priority order
        assertThat(r.track("screen").spatial()).isEqualTo(2);
        assertThat(r.track("pinned").spatial()).isGreaterThanOrEqualTo(r.track("speaker").spatial());
        assertThat(r.track("other").forwarding()).isTrue();
        assertThat(r.allocatedBps()).isLessThanOrEqualTo(3_000_000);
    }

    @Test
    void lowestPriorityTracksPauseFirst() {
        SubscribedTrack speaker = Layers.cam("speaker", 320, 180).withSpeakerRank(0);
        SubscribedTrack other = Layers.cam("other", 320, 180);
        // 120k - 40k audio leaves 80k: one 180p7.5 (60k) fits, a second does not
        AllocationResult r = new SubscriberAllocator().allocate(0, 120_000, List.of(AUDIO, other, speaker));
        assertThat(r.track("speaker").forwarding()).isTrue();
        assertThat(r.track("other").state()).isEqualTo(TrackState.PAUSED_BANDWIDTH);
    }

    @Test
    void tileSizeAndFrameRateLimitTheWantedLayer() {
        SubscribedTrack thumb = Layers.cam("thumb", 320, 180);
        SubscribedTrack hidden = Layers.cam("hidden", 0, 0);
        SubscribedTrack capped = Layers.cam("capped", 640, 360).withMaxFps(15);
        AllocationResult r = new SubscriberAllocator().allocate(0, 10_000_000, List.of(AUDIO, thumb, hidden, capped));
        assertThat(r.track("thumb").spatial()).isZero();
        assertThat(r.track("hidden").state()).isEqualTo(TrackState.NOT_VISIBLE);
        assertThat(r.track("capped").spatial()).isEqualTo(1);
        assertThat(r.track("capped").temporal()).isEqualTo(1);
        assertThat(r.desiredBps()).isEqualTo(40_000 + 150_000 + 320_000);
        assertThat(r.deficient()).isFalse();
    }

    @Test
    void unchangedInputsReuseTheDecisionWithoutRepeatingEvents() {
        SubscriberAllocator alloc = new SubscriberAllocator();
        List<SubscribedTrack> tracks = List.of(AUDIO, CAM);
        AllocationResult first = alloc.allocate(0, 300_000, tracks);
        assertThat(first.keyframes()).hasSize(1);
        AllocationResult again = alloc.allocate(50, 300_000, tracks);
        assertThat(again.tracks()).isEqualTo(first.tracks());
        assertThat(again.events()).isEmpty();
        assertThat(again.keyframes()).isEmpty();
        assertThat(alloc.allocate(100, 300_000, tracks)).isSameAs(again);
        // a new list (layout changed: tile hidden) is recomputed
        AllocationResult hidden = alloc.allocate(150, 300_000, List.of(AUDIO, CAM.withTile(0, 0)));
        assertThat(hidden.track("v1").state()).isEqualTo(TrackState.NOT_VISIBLE);
    }

    @Test
    void unmeasuredLayersGetANominalBitrateInsteadOfBeingFree() {
        List<VideoLayer> unmeasured = List.of(
                new VideoLayer(0, 0, 0, 320, 180, 30),
                new VideoLayer(1, 0, 0, 640, 360, 30),
                new VideoLayer(2, 0, 0, 0, 0, 0)); // size not learned yet either
        SubscribedTrack cam = SubscribedTrack.video("new", TrackKind.CAMERA, 1280, 720, unmeasured);
        assertThat(cam.layers()).extracting(VideoLayer::bitrateBps).containsExactly(120_960L, 483_840L, 1_350_000L);
        TrackAllocation a = new SubscriberAllocator().allocate(0, 300_000, List.of(AUDIO, cam)).track("new");
        assertThat(a.spatial()).as("an unmeasured 720p is not taken for free at 300 kbps").isZero();
        assertThat(SubscribedTrack.audio("mic", 0).layers().get(0).bitrateBps()).isEqualTo(40_000);
    }
}
