package dev.parley.operator.reconcile;

import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.model.StableResources;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** The SFU pool's PDB {@code {pool}-sfu}: created, and restored when changed or deleted by hand (its own informer). */
@KubernetesDependent(informer = @Informer(labelSelector = ParleyApi.LABEL_MANAGED_BY + "=" + ParleyApi.MANAGED_BY))
public class SfuPoolPdb extends CRUDKubernetesDependentResource<PodDisruptionBudget, SfuPool> {
    public SfuPoolPdb() {
        super(PodDisruptionBudget.class);
    }

    @Override
    protected PodDisruptionBudget desired(SfuPool pool, Context<SfuPool> context) {
        return StableResources.sfuPdb(pool);
    }
}
