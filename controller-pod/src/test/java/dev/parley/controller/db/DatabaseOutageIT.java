package dev.parley.controller.db;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.StoppablePostgres;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * PostgreSQL stopped under a running controller: every request that needs it is a retryable 503
 * {@code database_unavailable} problem with {@code Retry-After} (docs/api.md), never a 500; once PostgreSQL is
 * back the same requests succeed without restarting the controller. The database is a server of this class's
 * own ({@link StoppablePostgres}): the shared one serves other test classes.
 */
class DatabaseOutageIT {
    @RegisterExtension
    @Order(1)
    static final StoppablePostgres pg = new StoppablePostgres();
    @RegisterExtension
    @Order(2)
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0").onDatabase(pg::freshDatabaseUrl);

    private static void expectUnavailable(String what, ControllerHarness.Res r) {
        assertThat(r.status()).as(what + ": " + r.raw()).isEqualTo(503);
        assertThat(r.contentType()).as(what).startsWith("application/problem+json");
        assertThat(r.text("code")).as(what + ": " + r.raw()).isEqualTo("database_unavailable");
        assertThat(r.body().path("status").asInt()).as(what).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).as(what + " Retry-After").hasValueSatisfying(v ->
                assertThat(Integer.parseInt(v)).isPositive());
    }

    @Test
    void stoppedDatabaseIs503WithRetryAfterAndRequestsSucceedWhenItIsBack() throws Exception {
        Scenario s = new Scenario(h).meeting(true);
        String[] attendee = s.admittedAttendee(0);
        String create = "{\"title\":\"t\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\"}";
        String join = "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"Late\"}";
        String joiner = ControllerHarness.token(s.tenant, UUID.randomUUID());
        String m = "/v1/meetings/" + s.meetingId;

        pg.stop();
        try {
            expectUnavailable("create meeting", h.call(0, "POST", "/v1/meetings", s.hostToken, "outage-create", create));
            expectUnavailable("join", h.call(0, "POST", m + "/participants", joiner, "outage-join", join));
            expectUnavailable("read meeting", h.call(0, "GET", m, s.hostToken, null, null));
            expectUnavailable("snapshot", h.call(0, "GET", m + "/snapshot", s.hostToken, null, null));
            expectUnavailable("roster", h.call(0, "GET", m + "/participants", s.hostToken, null, null));
            expectUnavailable("command", h.call(0, "POST", m + "/commands", s.hostToken, "outage-cmd",
                    "{\"type\":\"lock_meeting\"}"));
            expectUnavailable("transport", s.transport(0, attendee[0], attendee[1], 0, "outage-transport"));
            expectUnavailable("recordings", h.call(0, "GET", m + "/recordings", s.hostToken, null, null));
        } finally {
            pg.start();
        }

        // the pool reconnects by itself: the same requests (same Idempotency-Keys) now succeed
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(h.call(0, "POST", "/v1/meetings", s.hostToken, "outage-create", create).status()).isEqualTo(201));
        var joined = h.call(0, "POST", m + "/participants", joiner, "outage-join", join);
        assertThat(joined.status()).as(joined.raw()).isEqualTo(201);
        assertThat(h.call(0, "GET", m, s.hostToken, null, null).status()).isEqualTo(200);
        assertThat(h.call(0, "GET", m + "/snapshot", s.hostToken, null, null).status()).isEqualTo(200);
        var t = s.transport(0, attendee[0], attendee[1], 0, "outage-transport");
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
    }
}
