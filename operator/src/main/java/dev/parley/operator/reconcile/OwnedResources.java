package dev.parley.operator.reconcile;

import dev.parley.operator.crd.ParleyApi;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Creates or corrects the stable Services and PodDisruptionBudgets. Only the fields the operator owns are
 * compared and edited, so the API server's own fields (clusterIP, nodePorts) are never fought over.
 */
public final class OwnedResources {
    private final KubernetesClient client;

    public OwnedResources(KubernetesClient client) {
        this.client = client;
    }

    public void ensureService(HasMetadata owner, String name, String type, Map<String, String> selector,
                              List<ServicePort> ports, Map<String, String> annotations) {
        String ns = owner.getMetadata().getNamespace();
        Service existing = client.services().inNamespace(ns).withName(name).get();
        if (existing == null) {
            client.services().inNamespace(ns).resource(new ServiceBuilder()
                    .withNewMetadata().withName(name).withNamespace(ns).withAnnotations(annotations)
                    .addToLabels(ParleyApi.LABEL_MANAGED_BY, ParleyApi.MANAGED_BY)
                    .withOwnerReferences(PodFactory.ownerRef(owner)).endMetadata()
                    .withNewSpec().withType(type).withSelector(selector).withPorts(ports)
                    // Media flows are long-lived: keep a client on the same TURN pod across reconnects.
                    .withSessionAffinity("ClientIP")
                    .endSpec().build()).create();
            return;
        }
        if (!Objects.equals(existing.getSpec().getSelector(), selector) || !samePorts(existing.getSpec().getPorts(), ports)
                || !Objects.equals(existing.getSpec().getType(), type)) {
            client.services().inNamespace(ns).withName(name).edit(s -> {
                s.getSpec().setSelector(selector);
                s.getSpec().setPorts(ports);
                s.getSpec().setType(type);
                return s;
            });
        }
    }

    private static boolean samePorts(List<ServicePort> a, List<ServicePort> b) {
        if (a == null || a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Objects.equals(a.get(i).getPort(), b.get(i).getPort())
                    || !Objects.equals(a.get(i).getProtocol(), b.get(i).getProtocol())
                    || !Objects.equals(a.get(i).getName(), b.get(i).getName())) {
                return false;
            }
        }
        return true;
    }

    /** Voluntary evictions (node drains) take at most one serving pod at a time; the operator itself deletes directly. */
    public void ensurePdb(HasMetadata owner, String name, Map<String, String> selector) {
        String ns = owner.getMetadata().getNamespace();
        PodDisruptionBudget existing = client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(name).get();
        if (existing == null) {
            client.policy().v1().podDisruptionBudget().inNamespace(ns).resource(new PodDisruptionBudgetBuilder()
                    .withNewMetadata().withName(name).withNamespace(ns)
                    .addToLabels(ParleyApi.LABEL_MANAGED_BY, ParleyApi.MANAGED_BY)
                    .withOwnerReferences(PodFactory.ownerRef(owner)).endMetadata()
                    .withNewSpec().withMaxUnavailable(new IntOrString(1))
                    .withNewSelector().withMatchLabels(selector).endSelector().endSpec().build()).create();
        } else if (!Objects.equals(existing.getSpec().getSelector().getMatchLabels(), selector)) {
            client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(name).edit(p -> {
                p.getSpec().getSelector().setMatchLabels(selector);
                return p;
            });
        }
    }
}
