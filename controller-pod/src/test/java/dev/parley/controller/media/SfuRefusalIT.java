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
 * An SFU whose process is gone while its registry lease still lives: the controller's own calls are refused,
 * so it stops placing anyone there at once instead of waiting for the lease to run out.
 */
class SfuRefusalIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(2, "controller-0");

    @Test
    void anSfuThatRefusesConnectionsIsPassedOverWhileItsLeaseLives() throws Exception {
        TestSfuDouble s0 = h.sfus.get(0);
        TestSfuDouble s1 = h.sfus.get(1);
        s0.setStress(0.1);
        s1.setStress(0.9);
        Thread.sleep(500);
        SfuSelector selector = h.controllers.get(0).getBean(SfuSelector.class);

        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        assertThat(s.transport(0, a[0], a[1], 0, "a1").status()).isEqualTo(200);
        assertThat(h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + a[1] + "'"))
                .isEqualTo("sfu-0");
        await().atMost(Duration.ofSeconds(5)).until(() -> s0.held(s.meetingId, a[1]) != null);

        s0.stopAnswering();
        // the next grant renewal (about every second) is refused: sfu-0 is no longer usable, though registered
        await().atMost(Duration.ofSeconds(5)).until(() -> !selector.isUsable("sfu-0"));
        assertThat(selector.get("sfu-0")).as("registry entry still there (lease alive)").isPresent();

        var moved = s.transport(0, a[0], a[1], 1, "a2");
        assertThat(moved.status()).as(moved.raw()).isEqualTo(200);
        assertThat(moved.body().get("transport_generation").asLong()).isEqualTo(2);
        assertThat(h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + a[1] + "'"))
                .isEqualTo("sfu-1");
        await().atMost(Duration.ofSeconds(5)).until(() -> s1.held(s.meetingId, a[1]) != null);
    }
}
