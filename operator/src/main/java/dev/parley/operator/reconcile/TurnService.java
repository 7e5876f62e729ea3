package dev.parley.operator.reconcile;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.model.StableResources;
import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * The region's stable TURN Service {@code {region}-turn}: selects the TURN pods labelled serving, so a draining pod
 * leaves its endpoints in phase 2. Shares the {@value MediaRegionReconciler#SERVICES} informer with
 * {@link SignalingService}.
 */
public class TurnService extends CRUDKubernetesDependentResource<Service, MediaRegion> {
    public TurnService() {
        super(Service.class);
    }

    @Override
    protected Service desired(MediaRegion region, Context<MediaRegion> context) {
        return StableResources.turnService(region);
    }

    @Override
    protected ResourceID targetSecondaryResourceID(MediaRegion region, Context<MediaRegion> context) {
        return new ResourceID(StableResources.turnServiceName(region), region.getMetadata().getNamespace());
    }
}
