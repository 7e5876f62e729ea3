package dev.parley.operator.reconcile;

import dev.parley.operator.crd.ParleyApi;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pods of one component (sfu, turn, recorder) as a JOSDK informer sees them: a pod change triggers a reconcile of
 * its owner (owner reference → primary), and reconcilers read pods from this cache instead of listing them.
 *
 * <p>The cache lags the operator's own writes by one watch event. Creates and updates are put into JOSDK's
 * temporary cache ({@code handleRecentResourceCreate/Update}), which also keeps those events from triggering a
 * needless reconcile. JOSDK has no such hook for deletes, so pods this operator deleted are hidden here until the
 * informer drops them (or shows them terminating): a round that runs before the delete event must not count, drain
 * or replace that pod again.
 */
public final class PodCache<P extends HasMetadata> {
    /** A tombstone outlives any watch lag; past this the informer is trusted again. */
    private static final Duration TOMBSTONE_TTL = Duration.ofMinutes(2);

    private final InformerEventSource<Pod, P> source;
    private final KubernetesSerialization serialization;
    private final Map<ResourceID, Instant> deleted = new ConcurrentHashMap<>();

    private PodCache(InformerEventSource<Pod, P> source, KubernetesSerialization serialization) {
        this.source = source;
        this.serialization = serialization;
    }

    /** Pods labelled with the component and managed by this operator, mapped to their controller owner of type P. */
    public static <P extends HasMetadata> PodCache<P> forComponent(EventSourceContext<P> context, String component) {
        Class<P> primary = context.getPrimaryResourceClass();
        var config = InformerEventSourceConfiguration.from(Pod.class, primary)
                .withName(component + "-pods")
                .withLabelSelector(ParleyApi.LABEL_MANAGED_BY + "=" + ParleyApi.MANAGED_BY + ","
                        + ParleyApi.LABEL_COMPONENT + "=" + component)
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(primary))
                .build();
        return new PodCache<>(new InformerEventSource<>(config, context), context.getClient().getKubernetesSerialization());
    }

    public InformerEventSource<Pod, P> eventSource() {
        return source;
    }

    /**
     * The owner's pods that exist and are not being deleted, by name (the order the API server lists them). Copies:
     * the informer's own objects must never be changed by a reconcile.
     */
    public List<Pod> podsOf(P owner) {
        prune();
        return source.getSecondaryResources(owner).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null && !hidden(p))
                .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
                .map(serialization::clone)
                .toList();
    }

    public Optional<Pod> get(String namespace, String name) {
        return source.get(new ResourceID(name, namespace)).filter(p -> !hidden(p)).map(serialization::clone);
    }

    /** After this operator created {@code pod}: later rounds see it before its watch event arrives. */
    public void created(Pod pod) {
        deleted.remove(ResourceID.fromResource(pod));
        source.handleRecentResourceCreate(ResourceID.fromResource(pod), pod);
    }

    /** After this operator changed a pod: later rounds see the new version before its watch event arrives. */
    public void updated(Pod pod) {
        ResourceID id = ResourceID.fromResource(pod);
        Pod previous = source.get(id).orElse(null);
        if (previous != null) {
            source.handleRecentResourceUpdate(id, pod, previous);
        }
    }

    /** After this operator deleted a pod. */
    public void deleted(String namespace, String name) {
        deleted.put(new ResourceID(name, namespace), Instant.now());
    }

    private boolean hidden(Pod p) {
        ResourceID id = ResourceID.fromResource(p);
        Instant at = deleted.get(id);
        if (at == null) {
            return false;
        }
        if (Instant.now().isAfter(at.plus(TOMBSTONE_TTL))) {
            deleted.remove(id);
            return false;
        }
        return true;
    }

    /** The view of one owner's pods that a reconcile works with. */
    public OwnedPods of(P owner) {
        String ns = owner.getMetadata().getNamespace();
        return new OwnedPods() {
            @Override
            public List<Pod> list() {
                return podsOf(owner);
            }

            @Override
            public Optional<Pod> get(String name) {
                return PodCache.this.get(ns, name);
            }

            @Override
            public void created(Pod pod) {
                PodCache.this.created(pod);
            }

            @Override
            public void updated(Pod pod) {
                PodCache.this.updated(pod);
            }

            @Override
            public void deleted(String name) {
                PodCache.this.deleted(ns, name);
            }
        };
    }

    /** Tombstones of pods the informer no longer has (or shows terminating) are no longer needed. */
    void prune() {
        deleted.keySet().removeIf(id -> source.get(id).map(p -> p.getMetadata().getDeletionTimestamp() != null).orElse(true));
    }
}
