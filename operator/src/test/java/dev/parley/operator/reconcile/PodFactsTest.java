package dev.parley.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.operator.crd.ParleyApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** How Kubernetes pod facts are read into the pool model. */
class PodFactsTest {
    static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");

    private static Pod pod(String readyStatus, String readySince, String gateStatus, String gateSince) {
        var conditions = new java.util.ArrayList<io.fabric8.kubernetes.api.model.PodCondition>();
        conditions.add(new io.fabric8.kubernetes.api.model.PodConditionBuilder().withType("Ready").withStatus(readyStatus)
                .withLastTransitionTime(readySince).build());
        if (gateStatus != null) {
            conditions.add(new io.fabric8.kubernetes.api.model.PodConditionBuilder().withType(ParleyApi.READINESS_GATE)
                    .withStatus(gateStatus).withLastTransitionTime(gateSince).build());
        }
        return new PodBuilder().withNewMetadata().withName("p").withCreationTimestamp("2026-01-01T00:00:00Z")
                .addToAnnotations(ParleyApi.ANNOTATION_REGISTERED_AT, "2026-01-01T00:01:00Z").endMetadata()
                .withNewStatus().withPhase("Running").withConditions(conditions).endStatus().build();
    }

    @Test
    void unreadyCountsOnlyWhileTheRegistrySaysActive() {
        // unready since creation, registered (gate True) 10 s ago: the clock starts at registration
        assertThat(PoolReconcile.toModel(pod("False", "2026-01-01T00:00:00Z", "True", "2026-01-01T00:59:50Z"), null, NOW)
                .unreadySince()).isEqualTo(Instant.parse("2026-01-01T00:59:50Z"));
        // became unready after registering
        assertThat(PoolReconcile.toModel(pod("False", "2026-01-01T00:30:00Z", "True", "2026-01-01T00:05:00Z"), null, NOW)
                .unreadySince()).isEqualTo(Instant.parse("2026-01-01T00:30:00Z"));
        // not registered / draining (gate False): never "unhealthy"
        assertThat(PoolReconcile.toModel(pod("False", "2026-01-01T00:00:00Z", "False", "2026-01-01T00:05:00Z"), null, NOW)
                .unreadySince()).isNull();
        assertThat(PoolReconcile.toModel(pod("True", "2026-01-01T00:00:00Z", "True", "2026-01-01T00:05:00Z"), null, NOW)
                .unreadySince()).isNull();
        assertThat(PoolReconcile.toModel(pod("True", "2026-01-01T00:00:00Z", null, null), null, NOW).everRegistered()).isTrue();
    }
}
