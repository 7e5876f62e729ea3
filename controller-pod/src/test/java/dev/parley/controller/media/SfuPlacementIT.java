package dev.parley.controller.media;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** SFU placement from the etcd registry: least stress, meeting stays together, never DRAINING, SFU loss. */
class SfuPlacementIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(3, "controller-0");

    private static String sfuOf(String pid) throws Exception {
        return h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + pid + "'");
    }

    @Test
    void placementFollowsTheRegistryAndSfuLossMovesParticipantsToANewGeneration() throws Exception {
        TestSfuDouble s0 = h.sfus.get(0);
        TestSfuDouble s1 = h.sfus.get(1);
        TestSfuDouble s2 = h.sfus.get(2);
        s0.setStress(0.9);
        s1.setStress(0.1);
        s2.setStress(0.05);
        s2.setDraining(); // least stressed, but draining: never chosen
        Thread.sleep(500);

        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        String[] b = s.admittedAttendee(0);
        assertThat(s.transport(0, a[0], a[1], 0, "a1").status()).isEqualTo(200);
        assertThat(sfuOf(a[1])).isEqualTo("sfu-1");
        // the meeting stays on its SFU even when another becomes less stressed
        s0.setStress(0.0);
        Thread.sleep(500);
        assertThat(s.transport(0, b[0], b[1], 0, "b1").status()).isEqualTo(200);
        assertThat(sfuOf(b[1])).isEqualTo("sfu-1");
        await().atMost(Duration.ofSeconds(3)).until(() -> s1.held(s.meetingId, a[1]) != null);

        // sfu-1 dies: its registry entry vanishes with its lease
        s1.kill();
        await().atMost(Duration.ofSeconds(15)).until(() -> h.controllers.get(0).getBean(SfuSelector.class).get("sfu-1").isEmpty());
        // retrying the old attempt does not resurrect it
        var retry = s.transport(0, a[0], a[1], 0, "a1");
        assertThat(retry.status()).isEqualTo(409);
        assertThat(retry.text("code")).isEqualTo("transport_attempt_superseded");
        assertThat(retry.body().get("current_transport_generation").asLong()).isEqualTo(1);
        // a new attempt with the current generation gets generation 2 on a live, ACTIVE SFU
        var moved = s.transport(0, a[0], a[1], 1, "a2");
        assertThat(moved.status()).as(moved.raw()).isEqualTo(200);
        assertThat(moved.body().get("transport_generation").asLong()).isEqualTo(2);
        assertThat(sfuOf(a[1])).isEqualTo("sfu-0");
        await().atMost(Duration.ofSeconds(3)).until(() -> s0.held(s.meetingId, a[1]) != null);
        assertThat(s2.held(s.meetingId, a[1])).isNull();
    }
}
