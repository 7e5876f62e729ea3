package dev.parley.controller.observability;

import dev.parley.testsupport.metrics.ExportedSeries;
import dev.parley.controller.auth.CachingTokenValidator;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.platform.etcd.ProcessLease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micronaut.security.token.validator.TokenValidator;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteInfo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Health reflects PostgreSQL and the etcd lease; {@code /metrics} exposes seed 000's metrics under Prometheus names
 * (docs/observability.md); OpenAPI served and complete: every public route is in the hand-written document, every internal route in docs/controller.md.
 */
class HealthAndMetricsIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    /** {x} → {} so that path parameter names don't matter. */
    static String normalize(String path) {
        return path.replaceAll("\\{[^}]*}", "{}");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyRouteIsDocumented() throws Exception {
        Map<String, Object> doc;
        try (var in = HealthAndMetricsIT.class.getResourceAsStream("/openapi/parley.yml")) {
            doc = new org.yaml.snakeyaml.Yaml().load(in);
        }
        Set<String> documented = new TreeSet<>();
        ((Map<String, Map<String, Object>>) doc.get("paths")).forEach((path, ops) ->
                ops.keySet().forEach(method -> documented.add(method.toUpperCase(Locale.ROOT) + " " + normalize(path))));
        String controllerDoc = normalize(Files.readString(Path.of("../docs/controller.md")));

        Set<String> publicRoutes = new TreeSet<>();
        Set<String> internalRoutes = new TreeSet<>();
        for (UriRouteInfo<?, ?> r : h.controllers.get(0).getBean(Router.class).uriRoutes().toList()) {
            if ("HEAD".equals(r.getHttpMethodName())) {
                continue; // Micronaut adds HEAD for every GET
            }
            String path = r.getUriMatchTemplate().toPathString();
            String route = r.getHttpMethodName() + " " + normalize(path);
            if (path.startsWith("/v1/")) {
                publicRoutes.add(route);
            } else if (path.startsWith("/internal/")) {
                internalRoutes.add(route);
            }
        }
        assertThat(publicRoutes).as("public routes").hasSizeGreaterThanOrEqualTo(10);
        assertThat(documented).as("routes in openapi/parley.yml").containsAll(publicRoutes);
        assertThat(internalRoutes).as("internal routes").contains("GET /internal/v1/meetings/{}/state");
        for (String route : internalRoutes) {
            assertThat(controllerDoc).as("docs/controller.md lists " + route).contains("`" + route + "`");
        }
    }

    @Test
    void healthMetricsAndOpenApi() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        s.transport(0, a[0], a[1], 0, "t");
        s.command(0, "{\"type\":\"set_publish\",\"participant_id\":\"" + a[1] + "\",\"audio\":false}");

        // the framework's JWT validator is wrapped by the cache (one validator), and the cache is used
        var validators = h.controllers.get(0).getBeansOfType(TokenValidator.class);
        assertThat(validators).hasSize(1).allMatch(v -> v instanceof CachingTokenValidator<?, ?>);
        assertThat(((CachingTokenValidator<?, ?>) validators.iterator().next()).cachedTokens()).isPositive();

        var health = h.call(h.base(0), "GET", "/health", null, null, null, null);
        assertThat(health.status()).as(health.raw()).isEqualTo(200);
        assertThat(health.raw()).contains("etcd-lease").contains("jdbc");

        var prom = h.call(h.base(0), "GET", "/metrics", null, null, null, null);
        assertThat(prom.status()).isEqualTo(200);
        for (String name : new String[]{"parley_request_latency_seconds", "parley_authorization_enforcement_lag_seconds",
                "parley_outbox_oldest_unpublished_age_seconds", "parley_stale_generation_rejected_total",
                "parley_duplicate_events_total", "parley_active_meetings", "parley_active_connections",
                "parley_join_to_media_ready_seconds", "parley_process_lease_confirmed"}) {
            assertThat(prom.raw()).as(name).containsPattern("(?m)^" + name + "(\\{[^}]*})? ");
        }
        assertThat(prom.raw()).contains("operation=\"command\"");
        // Prometheus naming (docs/observability.md): base units, no unit doubled into the name, JVM and process series
        assertThat(prom.raw()).doesNotContain("_ms_seconds").doesNotContain("duplicate_event_rate")
                .doesNotContainPattern("(?m)^parley_\\w*_(ms|us|bps)(_|\\{| )")
                .containsPattern("(?m)^jvm_memory_used_bytes\\{").containsPattern("(?m)^process_cpu_usage ")
                .containsPattern("(?m)^process_start_time_seconds ");
        assertThat(ExportedSeries.missingFrom(prom.raw(), "controller")).as("docs/observability.md's controller series").isEmpty();
        // every series the controller registers itself is a parley_ one (no unprefixed meter slipped in)
        for (String line : prom.raw().split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String name = line.split(" ")[2];
                assertThat(name).as("meter %s", name).matches("(parley|jvm|process|system|executor|logback|hikaricp|jdbc)_.*");
            }
        }
        // the outbox age is a number read from PostgreSQL (NaN would mean the query failed)
        assertThat(prom.raw()).containsPattern("(?m)^parley_outbox_oldest_unpublished_age_seconds(\\{[^}]*})? [0-9]");
        // Micronaut's /prometheus endpoint stays (same registry)
        assertThat(h.call(h.base(0), "GET", "/prometheus", null, null, null, null).raw())
                .contains("parley_outbox_oldest_unpublished_age_seconds");

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
        // ... and the lease-loss alert's gauge says so (manifests/monitoring)
        assertThat(h.call(h.base(0), "GET", "/metrics", null, null, null, null).raw())
                .containsPattern("(?m)^parley_process_lease_confirmed(\\{[^}]*})? 0\\.0$");
        h.controllers.get(0).getBean(ProcessLease.class).resumeKeepAlive();
    }
}
