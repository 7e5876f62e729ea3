package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.relay.RelayLab;
import dev.parley.controller.cascade.DistributionPlan;
import dev.parley.controller.cascade.Planner;
import dev.parley.sfu.SfuServer;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The owner's relay side effects against two real SFU servers on loopback (bench's {@link RelayLab}: real
 * {@link SfuServer}s, a media-core WebRTC publisher with three-layer VP8 simulcast + Opus on SFU A, a subscriber on
 * SFU B, grants renewed like an owner). The controller's own classes do the rest: {@link PlanInputs} → the pure
 * {@link Planner} → {@link RelayApplier} over {@link RelayCalls}. Media reaches B's subscriber only through the relays
 * the applier created; a stale epoch is refused; a revoked publisher's media stops on B too; a subscriber leaving
 * removes the relays after the grace.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class RelayApplierSfuTest {
    private static final String MEETING = "m-driver";
    private static final long GRACE = 2_000;
    private static RelayLab lab;
    private static Publisher pub;
    private static RelayLab.Receiver sub;
    private static Thread driver;
    private static final RelayApplier applier = new RelayApplier(new RelayCalls(RelayLab.SECRET));
    private static final Planner planner = new Planner(GRACE);
    private static final Map<String, AppliedRelay> applied = new HashMap<>();
    private static final Map<String, TrackInfo> tracks = Map.of(
            "pub:0", new TrackInfo("pub:0", "pub", "audio", 1),
            "pub:1", new TrackInfo("pub:1", "pub", "video", 3));
    private static DistributionPlan plan = DistributionPlan.EMPTY;

    @BeforeAll
    static void start() throws Exception {
        lab = new RelayLab();
        pub = lab.publish(lab.a, MEETING, "pub");
        sub = lab.subscribe(lab.b, MEETING, "sub", 1, new Recorder(3));
        driver = lab.drive(List.of(pub), List.of(sub.subscriber()));
    }

    @AfterAll
    static void stop() {
        if (driver != null) driver.interrupt();
        if (pub != null) pub.transport.close();
        if (sub != null) sub.subscriber().transport.close();
        if (lab != null) lab.close();
    }

    private static String url(String pod) {
        SfuServer s = "sfu-a".equals(pod) ? lab.a : "sfu-b".equals(pod) ? lab.b : null;
        return s == null ? null : "http://127.0.0.1:" + s.internalPort();
    }

    /** Two regions: A in eu, B in us (one relay per track, A → B). */
    private static final Function<String, String> REGIONS = pod -> "sfu-a".equals(pod) ? "eu" : "us";

    private static RelayApplier.Outcome round(Map<String, String> placement, long epoch, long now) {
        plan = planner.plan(plan, PlanInputs.of(placement, tracks, REGIONS, PlanInputs.pods(plan)), now);
        return applier.apply(MEETING, epoch, plan, tracks, RelayApplierSfuTest::url, applied);
    }

    @Test
    @Order(1)
    void aStaleEpochIsRefusedAndNothingIsApplied() {
        RelayApplier.Outcome o = round(Map.of("pub", "sfu-a", "sub", "sfu-b"), RelayLab.EPOCH - 1, 0);
        assertThat(o.failed()).as("both hops refused (409 stale_epoch at the receiver)").isEqualTo(2);
        assertThat(applied).isEmpty();
        assertThat(lab.state(lab.a).get("relays")).isEmpty();
        assertThat(lab.state(lab.b).get("relays")).isEmpty();
        assertThat(sub.audio().get() + sub.video().get()).isZero();
    }

    @Test
    @Order(2)
    void theAppliedPlanCarriesMediaToTheOtherSfu() throws Exception {
        RelayApplier.Outcome o = round(Map.of("pub", "sfu-a", "sub", "sfu-b"), RelayLab.EPOCH, 0);
        assertThat(o.created()).isEqualTo(2);
        assertThat(o.failed()).isZero();
        assertThat(applied.values()).extracting(AppliedRelay::from, AppliedRelay::to)
                .allSatisfy(t -> assertThat(t.toList()).containsExactly("sfu-a", "sfu-b"));
        waitFor(() -> sub.video().get() > 60 && sub.audio().get() > 60, 15_000, "audio and video at B's subscriber");

        JsonNode out = lab.state(lab.a).get("relays");
        assertThat(out).hasSize(2);
        Map<String, String> layers = new HashMap<>();
        for (JsonNode r : out) {
            assertThat(r.get("direction").asText()).isEqualTo("out");
            assertThat(r.get("controller_epoch").asLong()).isEqualTo(RelayLab.EPOCH);
            layers.put(r.get("tracks").get(0).get("track_id").asText(), r.get("tracks").get(0).get("layers").toString());
        }
        // the owner does not know B's tile sizes: layers up to the top one, so B's BWE can step down
        assertThat(layers).containsEntry("pub:0", "[0]").containsEntry("pub:1", "[0,1,2]");
        JsonNode in = lab.state(lab.b).get("relays");
        assertThat(in).hasSize(2);
        for (JsonNode r : in) {
            assertThat(r.get("direction").asText()).isEqualTo("in");
            assertThat(r.get("auth_failures").asLong()).isZero();
            assertThat(r.get("tracks").get(0).get("published").asBoolean()).isTrue();
        }
    }

    @Test
    @Order(3)
    void theSamePlanAgainChangesNothing() {
        RelayApplier.Outcome o = round(Map.of("pub", "sfu-a", "sub", "sfu-b"), RelayLab.EPOCH, 100);
        assertThat(o.created() + o.deleted() + o.failed()).isZero();
        assertThat(lab.state(lab.a).get("relays")).hasSize(2);
    }

    @Test
    @Order(4)
    void aSubscriberLeavingRemovesTheRelaysAfterTheGrace() throws Exception {
        RelayApplier.Outcome o = round(Map.of("pub", "sfu-a"), RelayLab.EPOCH, 1_000);
        assertThat(o.deleted()).as("idle hops kept for the grace").isZero();
        assertThat(lab.state(lab.a).get("relays")).hasSize(2);
        o = round(Map.of("pub", "sfu-a"), RelayLab.EPOCH, 1_000 + GRACE);
        assertThat(o.deleted()).isEqualTo(2);
        assertThat(applied).isEmpty();
        assertThat(lab.state(lab.a).get("relays")).isEmpty();
        assertThat(lab.state(lab.b).get("relays")).isEmpty();
        long before = sub.video().get();
        Thread.sleep(1000);
        assertThat(sub.video().get() - before).as("nothing crosses once the relay is gone").isLessThanOrEqualTo(5);
    }

    @Test
    @Order(5)
    void aRevokedPublishersRelayedMediaStopsOnTheReceivingSfu() throws Exception {
        RelayApplier.Outcome o = round(Map.of("pub", "sfu-a", "sub", "sfu-b"), RelayLab.EPOCH, 10_000);
        assertThat(o.created()).isEqualTo(2);
        long v0 = sub.video().get();
        waitFor(() -> sub.video().get() > v0 + 60, 15_000, "media through the new relays");
        lab.stopRenewing("pub"); // the owner's grant for the publisher is no longer renewed: it expires (≤ 3 s)
        Thread.sleep(3_500);
        long a = sub.audio().get(), v = sub.video().get();
        Thread.sleep(1_500);
        assertThat(sub.audio().get() - a + sub.video().get() - v)
                .as("the origin drops the revoked publisher's packets before its relay taps them").isZero();
        List<Long> relayed = new ArrayList<>();
        for (JsonNode r : lab.state(lab.a).get("relays")) relayed.add(r.get("packets").asLong());
        Thread.sleep(500);
        int i = 0;
        for (JsonNode r : lab.state(lab.a).get("relays")) assertThat(r.get("packets").asLong()).isEqualTo(relayed.get(i++));
    }

    private static void waitFor(BooleanSupplier c, long ms, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (!c.getAsBoolean()) {
            if (System.currentTimeMillis() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(50);
        }
    }
}
