package dev.parley.operator.reconcile;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.model.StableResources;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** The region's TURN pool PDB {@code {region}-turn}: created, and restored when changed or deleted by hand. */
@KubernetesDependent(informer = @Informer(labelSelector = ParleyApi.LABEL_MANAGED_BY + "=" + ParleyApi.MANAGED_BY))
public class TurnPdb extends CRUDKubernetesDependentResource<PodDisruptionBudget, MediaRegion> {
    public TurnPdb() {
        super(PodDisruptionBudget.class);
    }

    @Override
    protected PodDisruptionBudget desired(MediaRegion region, Context<MediaRegion> context) {
        return StableResources.turnPdb(region);
    }
}
