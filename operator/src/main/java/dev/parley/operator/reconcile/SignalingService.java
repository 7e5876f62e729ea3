package dev.parley.operator.reconcile;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.model.StableResources;
import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * The region's stable signaling Service {@code {region}-signaling} (its name and external-dns hostname never change
 * while controller pods come and go). Shares the {@value MediaRegionReconciler#SERVICES} informer with
 * {@link TurnService}; each picks its Service by name.
 */
public class SignalingService extends CRUDKubernetesDependentResource<Service, MediaRegion> {
    public SignalingService() {
        super(Service.class);
    }

    @Override
    protected Service desired(MediaRegion region, Context<MediaRegion> context) {
        return StableResources.signalingService(region);
    }

    @Override
    protected ResourceID targetSecondaryResourceID(MediaRegion region, Context<MediaRegion> context) {
        return new ResourceID(StableResources.signalingServiceName(region), region.getMetadata().getNamespace());
    }
}
