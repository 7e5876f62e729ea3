package dev.parley.controller.observability;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;

/**
 * {@code GET /metrics}: the same Prometheus text as Micronaut's {@code /prometheus} endpoint, on the path every other
 * Parley pod serves, so one PodMonitor/ServiceMonitor path and one scrape config fit all pods. Micronaut's own JSON
 * {@code metrics} endpoint, which would take this path, is switched off in application.yml.
 */
@Controller
@Secured(SecurityRule.IS_ANONYMOUS)
public class MetricsController {
    private final PrometheusMeterRegistry registry;

    public MetricsController(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Get(uri = "/metrics", produces = "text/plain; version=0.0.4; charset=utf-8")
    public String scrape() {
        return registry.scrape();
    }
}
