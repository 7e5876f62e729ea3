package dev.parley.controller.media;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A meeting's participants on several SFUs (issue 17): a participant naming a MediaRegion that has an SFU is placed
 * there; a participant without one stays in the controller's region; a meeting spills to another SFU of the region
 * when its SFU passes the spill stress. Each participant's grant reaches the SFU it was placed on.
 */
class CrossSfuPlacementIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(2, "controller-0");

    private static String sfuOf(String pid) throws Exception {
        return h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + pid + "'");
    }

    @Test
    void participantsArePlacedByMediaRegionAndSpillWhenTheMeetingsSfuIsLoaded() throws Exception {
        TestSfuDouble s0 = h.sfus.get(0);
        TestSfuDouble s1 = h.sfus.get(1);
        TestSfuDouble far = new TestSfuDouble("sfu-far", "far-away", h.etcdClient, h.ticketKey.toPublicJWK(),
                ControllerHarness.INTERNAL_SECRET);
        try {
            s0.setStress(0.1);
            s1.setStress(0.2);
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    h.controllers.get(0).getBean(SfuSelector.class).get("sfu-far").isPresent());
            Scenario s = new Scenario(h).meeting(false);
            String[] a = s.admittedAttendee(0), b = s.admittedAttendee(0), c = s.admittedAttendee(0),
                    d = s.admittedAttendee(0), e = s.admittedAttendee(0);

            var tooLong = s.transportIn(0, a[0], a[1], 0, "a0", "r".repeat(64));
            assertThat(tooLong.status()).as("an over-long media_region is refused, nothing reserved").isEqualTo(400);
            assertThat(tooLong.raw()).contains("media_region");
            var notText = h.call(0, "POST", "/v1/meetings/" + s.meetingId + "/participants/" + a[1] + "/transports", a[0],
                    "a0b", "{\"expected_transport_generation\":0,\"device_key_id\":\"device-key-82\",\"media_region\":7}");
            assertThat(notText.status()).as("a media_region that is not text is refused").isEqualTo(400);
            var ra = s.transport(0, a[0], a[1], 0, "a1");
            assertThat(ra.status()).as(ra.raw()).isEqualTo(200);
            assertThat(sfuOf(a[1])).isEqualTo("sfu-0");
            var rb = s.transportIn(0, b[0], b[1], 0, "b1", "far-away");
            assertThat(rb.status()).as(rb.raw()).isEqualTo(200);
            assertThat(sfuOf(b[1])).as("the participant's MediaRegion has an SFU").isEqualTo("sfu-far");
            await().atMost(Duration.ofSeconds(3)).until(() -> far.held(s.meetingId, b[1]) != null);
            assertThat(s.transport(0, c[0], c[1], 0, "c1").status()).isEqualTo(200);
            assertThat(sfuOf(c[1])).as("no MediaRegion: the controller's region").isEqualTo("sfu-0");
            assertThat(s.transportIn(0, e[0], e[1], 0, "e1", "nowhere").status()).isEqualTo(200);
            assertThat(sfuOf(e[1])).as("a MediaRegion without an SFU: the controller's region").isEqualTo("sfu-0");

            s0.setStress(0.95); // past the spill stress while sfu-1 has room
            await().atMost(Duration.ofSeconds(5)).until(() -> h.controllers.get(0).getBean(SfuSelector.class)
                    .get("sfu-0").map(x -> x.load().stress() > 0.9).orElse(false));
            assertThat(s.transport(0, d[0], d[1], 0, "d1").status()).isEqualTo(200);
            assertThat(sfuOf(d[1])).as("capacity spill").isEqualTo("sfu-1");
            await().atMost(Duration.ofSeconds(3)).until(() -> s1.held(s.meetingId, d[1]) != null);
            // those already placed stay where they are, each SFU holding its own participants' grants
            await().atMost(Duration.ofSeconds(3)).until(() -> s0.held(s.meetingId, a[1]) != null
                    && s0.held(s.meetingId, c[1]) != null);
            assertThat(far.held(s.meetingId, a[1])).isNull();
        } finally {
            far.close();
        }
    }
}
