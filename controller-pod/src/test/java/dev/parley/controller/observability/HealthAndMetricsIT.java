package dev.parley.controller.observability;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.platform.etcd.ProcessLease;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Health reflects PostgreSQL and the etcd lease; Prometheus exposes seed 000's metric names; OpenAPI served. */
class HealthAndMetricsIT {
    static ControllerHarness h;

    @BeforeAll
    static void up() throws Exception {
        h = new ControllerHarness(1);
        h.startController("controller-0");
    }

    @AfterAll
    static void down() throws Exception {
        h.close();
    }

    @Test
    void healthMetricsAndOpenApi() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        s.transport(0, a[0], a[1], 0, "t");
        s.command(0, "{\"type\":\"set_publish\",\"participant_id\":\"" + a[1] + "\",\"audio\":false}");

        var health = h.call(h.base(0), "GET", "/health", null, null, null, null);
        assertThat(health.status()).as(health.raw()).isEqualTo(200);
        assertThat(health.raw()).contains("etcd-lease").contains("jdbc");

        var prom = h.call(h.base(0), "GET", "/prometheus", null, null, null, null);
        assertThat(prom.status()).isEqualTo(200);
        for (String name : new String[]{"request_latency_seconds", "authorization_enforcement_lag_seconds",
                "outbox_oldest_unpublished_age_seconds", "stale_generation_rejected_total", "duplicate_event_rate_total",
                "active_meetings", "active_connections", "join_to_media_ready_ms"}) {
            assertThat(prom.raw()).as(name).contains(name);
        }
        assertThat(prom.raw()).contains("operation=\"command\"");

        var openapi = h.call(h.base(0), "GET", "/openapi/parley.yml", null, null, null, null);
        assertThat(openapi.status()).isEqualTo(200);
        assertThat(openapi.raw()).contains("/v1/meetings/{meeting_id}/commands");

        // the web client is served from classpath:public at /
        var index = h.call(h.base(0), "GET", "/", null, null, null, null);
        assertThat(index.status()).isEqualTo(200);
        assertThat(index.raw()).containsIgnoringCase("<html");

        // a lease in doubt makes the controller unready
        h.controllers.get(0).getBean(ProcessLease.class).haltKeepAlive();
        await().atMost(Duration.ofSeconds(4)).until(() ->
                h.call(h.base(0), "GET", "/health/readiness", null, null, null, null).status() == 503);
        h.controllers.get(0).getBean(ProcessLease.class).resumeKeepAlive();
    }
}
