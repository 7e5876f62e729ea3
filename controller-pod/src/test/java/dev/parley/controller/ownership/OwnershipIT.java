package dev.parley.controller.ownership;

import dev.parley.controller.meeting.NotOwnerException;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.internal.InternalError;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Two controller instances sharing PostgreSQL and etcd. The owner's keep-alive is stopped (a hung or
 * partitioned process); the other takes over with a higher epoch; every write and grant of the old epoch
 * is refused. The SFU is a test double implementing the grants contract with epoch fencing.
 */
class OwnershipIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-a", "controller-b");
    static ApplicationContext a;
    static ApplicationContext b;

    @BeforeAll
    static void up() throws Exception {
        a = h.controllers.get(0);
        b = h.controllers.get(1);
    }

    private static long dbEpoch(String m) throws Exception {
        return Long.parseLong(h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + m + "'"));
    }

    @Test
    void takeoverFencesTheOldOwnerInPostgresAndAtTheSfu() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 0); // joined through A: A owns
        String m = s.meetingId;
        long epochA = dbEpoch(m);
        assertThat(epochA).isPositive();
        assertThat(a.getBean(Ownership.class).epochIfOwned(UUID.fromString(m))).isEqualTo(epochA);

        // a request reaching B is forwarded to the owner A
        String[] att = s.admittedAttendee(1);
        assertThat(b.getBean(Ownership.class).epochIfOwned(UUID.fromString(m))).isNull();
        var t = s.transport(1, att[0], att[1], 0, "t1");
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        assertThat(t.body().get("controller_epoch").asLong()).isEqualTo(epochA);
        TestSfuDouble sfu = h.sfus.get(0);
        await().atMost(Duration.ofSeconds(3)).until(() -> sfu.held(m, att[1]) != null);
        assertThat(sfu.held(m, att[1]).grant().controllerEpoch()).isEqualTo(epochA);

        // A hangs: no more keep-alives
        ProcessLease leaseA = a.getBean(ProcessLease.class);
        long leaseDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseA.confirmedRemainingMillis());
        long halted = System.nanoTime();
        leaseA.haltKeepAlive();

        // A stops renewing grants before its lease could expire; the SFU's grant runs out by then
        await().atMost(Duration.ofSeconds(3)).until(() -> !leaseA.isConfirmed());
        long doubtAt = System.nanoTime();
        assertThat(doubtAt).isLessThan(leaseDeadline);
        var commandOnA = h.call(0, "POST", "/v1/meetings/" + m + "/commands", s.hostToken, "while-in-doubt",
                "{\"type\":\"lock_meeting\"}");
        assertThat(commandOnA.status()).isEqualTo(503);
        assertThat(commandOnA.text("code")).isEqualTo("lease_in_doubt");
        TestSfuDouble.Held lastFromA = sfu.held(m, att[1]);
        assertThat(lastFromA.grant().controllerEpoch()).isEqualTo(epochA);
        assertThat(lastFromA.expiresAtNanos()).isLessThanOrEqualTo(leaseDeadline);

        // B takes over within lease TTL + 1 s, with a higher epoch
        long[] tookOverAt = new long[1];
        await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(100)).until(() -> {
            var r = h.call(1, "POST", "/v1/meetings/" + m + "/commands", s.hostToken, "takeover-probe",
                    "{\"type\":\"set_publish\",\"participant_id\":\"" + att[1] + "\",\"video\":false}");
            if (r.status() == 201 || r.status() == 200) {
                tookOverAt[0] = System.nanoTime();
                return true;
            }
            return false;
        });
        long takeoverMs = TimeUnit.NANOSECONDS.toMillis(tookOverAt[0] - halted);
        System.out.println("TAKEOVER_MS=" + takeoverMs + " (lease ttl 3000 ms)");
        assertThat(takeoverMs).as("takeover time").isLessThanOrEqualTo(3000 + 1000 + 500);
        long epochB = dbEpoch(m);
        assertThat(epochB).isGreaterThan(epochA);
        assertThat(b.getBean(Ownership.class).epochIfOwned(UUID.fromString(m))).isEqualTo(epochB);

        // a write with the old epoch is rejected by PostgreSQL (zero rows → not owner, never success)
        long version = Long.parseLong(h.scalar("SELECT version FROM meeting_participants WHERE participant_id = '" + att[1] + "'"));
        try (Connection c = h.db()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> ParticipantRow.fencedUpdate(c, UUID.fromString(m), UUID.fromString(att[1]), version,
                    epochA, "audio_publish_allowed = true")).isInstanceOf(NotOwnerException.class);
            c.rollback();
        }
        assertThat(h.scalar("SELECT version FROM meeting_participants WHERE participant_id = '" + att[1] + "'"))
                .isEqualTo(String.valueOf(version));

        // the SFU now holds B's epoch; a grant with A's epoch is refused
        await().atMost(Duration.ofSeconds(3)).until(() -> sfu.highestEpoch.getOrDefault(m, 0L) == epochB);
        PutGrantsRequest old = new PutGrantsRequest(m, epochA, List.of(new Grant(att[1], version + 10, epochA,
                new PublishRights(true, true, true), true, 3000)));
        HttpResponse<String> r = h.http.send(HttpRequest.newBuilder(URI.create(sfu.baseUrl() + "/internal/v1/grants"))
                .header("Authorization", "Bearer " + ControllerHarness.INTERNAL_SECRET)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(ControllerHarness.JSON.writeValueAsString(old))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(ControllerHarness.JSON.readTree(r.body()).get("code").asText()).isEqualTo(InternalError.STALE_EPOCH);
        assertThat(sfu.held(m, att[1]).grant().controllerEpoch()).isEqualTo(epochB);

        // A recovers its connection: its old lease is gone, it owns nothing and forwards to B
        leaseA.resumeKeepAlive();
        await().atMost(Duration.ofSeconds(8)).until(() -> leaseA.isConfirmed()
                && a.getBean(Ownership.class).epochIfOwned(UUID.fromString(m)) == null);
        var viaA = h.call(0, "POST", "/v1/meetings/" + m + "/commands", s.hostToken, "after-recovery",
                "{\"type\":\"lock_meeting\",\"locked\":true}");
        assertThat(viaA.status()).as(viaA.raw()).isEqualTo(201);
        assertThat(dbEpoch(m)).isEqualTo(epochB);
        assertThat(h.scalar("SELECT locked FROM meetings WHERE meeting_id = '" + m + "'")).isEqualTo("t");
    }
}
