package dev.parley.controller.observability;

import dev.parley.platform.etcd.ProcessLease;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.inject.Singleton;

/**
 * {@code parley_process_lease_confirmed}: 1 while this pod's etcd lease is confirmed, 0 while in doubt or lost (the
 * pod is then unready and stops renewing grants). Feeds the lease-loss alert in manifests/monitoring.
 */
@Context
@Singleton
public class LeaseMetrics {
    public LeaseMetrics(MeterRegistry meters, ProcessLease lease) {
        Gauge.builder("parley_process_lease_confirmed", lease, l -> l.isConfirmed() ? 1 : 0)
                .description("1 while the pod's etcd process lease is confirmed, 0 while in doubt or lost")
                .register(meters);
    }
}
