package dev.parley.controller.observability;

import dev.parley.platform.etcd.ProcessLease;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.management.health.indicator.annotation.Readiness;
import jakarta.inject.Singleton;
import org.reactivestreams.Publisher;
import io.micronaut.core.async.publisher.Publishers;

import java.util.Map;

/** Ready only while the etcd lease is confirmed (a controller in doubt must not take traffic). */
@Singleton
@Readiness
public class LeaseHealthIndicator implements HealthIndicator {
    private final ProcessLease lease;

    public LeaseHealthIndicator(ProcessLease lease) {
        this.lease = lease;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        HealthStatus st = lease.isConfirmed() ? HealthStatus.UP : HealthStatus.DOWN;
        return Publishers.just(HealthResult.builder("etcd-lease", st)
                .details(Map.of("state", lease.state().name(), "lease_id", Long.toHexString(lease.leaseId())))
                .build());
    }
}
