package dev.parley.controller.media;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Writing {@code applied} (a database transaction) never holds back the next grant push to the same SFU. An SFU
 * has one push in flight at a time; if the thread that handles its answer also wrote {@code applied}, a slow write
 * (here: the meeting row locked by someone else) would keep a revocation of ANOTHER meeting from reaching that SFU.
 * Renewals are switched off (60 s), so only the push after the commit can deliver the new grant.
 */
class AppliedWriteOffPushLaneIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, Map.of("PARLEY_GRANT_RENEW_MILLIS", "60000"),
            "controller-0");

    /** A meeting whose admitted attendee holds a transport: {scenario meeting id, attendee pid}. */
    private static Scenario meetingWithTransport(String[] attendee) {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        var t = s.transport(0, a[0], a[1], 0, "t-" + UUID.randomUUID());
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        attendee[0] = a[1];
        return s;
    }

    private static ControllerHarness.Res revokeAudio(Scenario s, String pid) {
        var r = s.command(0, "{\"type\":\"set_publish\",\"participant_id\":\"" + pid + "\",\"audio\":false}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r;
    }

    private static String enforcement(String commandId) throws Exception {
        return h.scalar("SELECT media_enforcement FROM commands WHERE command_id = '" + commandId + "'");
    }

    @Test
    void aSlowAppliedWriteDoesNotHoldBackAnotherMeetingsPush() throws Exception {
        TestSfuDouble sfu = h.sfus.get(0);
        String[] a = new String[1];
        String[] b = new String[1];
        Scenario ma = meetingWithTransport(a);
        Scenario mb = meetingWithTransport(b);
        await().atMost(Duration.ofSeconds(10)).until(() -> sfu.held(ma.meetingId, a[0]) != null
                && sfu.held(mb.meetingId, b[0]) != null);

        // 1. meeting A's revocation commits; the SFU's answer to its push is held back
        CountDownLatch answerA = new CountDownLatch(1);
        sfu.holdAnswersFor(ma.meetingId, answerA);
        var ra = revokeAudio(ma, a[0]);
        String commandA = ra.text("command_id");
        assertThat(ra.text("media_enforcement")).isEqualTo("pending");

        try (Connection lock = h.db()) {
            // 2. someone holds A's meeting row: writing A's `applied` must wait for it
            lock.setAutoCommit(false);
            try (PreparedStatement ps = lock.prepareStatement("SELECT 1 FROM meetings WHERE meeting_id = ? FOR UPDATE")) {
                ps.setObject(1, UUID.fromString(ma.meetingId));
                ps.executeQuery().close();
            }
            // 3. the SFU answers A's push: the controller now tries to write A's `applied` and waits on the lock
            answerA.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> h.count("SELECT count(*) FROM pg_stat_activity "
                    + "WHERE wait_event_type = 'Lock' AND datname = current_database()") >= 1);
            assertThat(enforcement(commandA)).isEqualTo("pending");

            // 4. meeting B's revocation on the same SFU is pushed and enforced meanwhile
            var rb = revokeAudio(mb, b[0]);
            long versionB = rb.body().path("participant_version").asLong();
            assertThat(versionB).isPositive();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                TestSfuDouble.Held held = sfu.held(mb.meetingId, b[0]);
                assertThat(held.grant().version()).as("B's grant at the SFU").isGreaterThanOrEqualTo(versionB);
                assertThat(held.grant().publish().audio()).as("B's audio revoked at the SFU").isFalse();
            });
            assertThat(enforcement(commandA)).as("A's write still waits for the row").isEqualTo("pending");
            lock.rollback();
        }

        // 5. once the row is free, both commands are recorded as applied
        String commandB = h.scalar("SELECT command_id FROM commands WHERE meeting_id = '" + mb.meetingId
                + "' AND command_type = 'set_publish'");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(enforcement(commandA)).isEqualTo("applied");
            assertThat(enforcement(commandB)).isEqualTo("applied");
        });
    }
}
