package dev.parley.operator.model;

import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.SfuPool;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The desired stable Services and PodDisruptionBudgets of a region and its pools. Only the fields the operator
 * owns are set, so the API server's own (clusterIP, nodePorts) are left to it.
 */
public final class StableResources {
    private StableResources() {
    }

    public static String signalingServiceName(MediaRegion mr) {
        return mr.getMetadata().getName() + "-signaling";
    }

    public static String turnServiceName(MediaRegion mr) {
        return mr.getMetadata().getName() + "-turn";
    }

    public static String sfuPdbName(SfuPool pool) {
        return pool.getMetadata().getName() + "-sfu";
    }

    /** Pods of the pool that may get new work: what the TURN Service and the PDBs select. */
    public static Map<String, String> serving(String component, String pool) {
        Map<String, String> m = new LinkedHashMap<>(PodFactory.poolSelector(component, pool));
        m.put(ParleyApi.LABEL_SERVING, "true");
        return m;
    }

    public static Service signalingService(MediaRegion mr) {
        var spec = mr.getSpec();
        return service(mr, signalingServiceName(mr), "ClusterIP", Map.of("app.kubernetes.io/name", spec.controllerSelector),
                List.of(port("http", 80, 8080, "TCP")), hostAnnotation(spec.signalingHost));
    }

    public static Service turnService(MediaRegion mr) {
        var spec = mr.getSpec();
        int p = spec.turn.port;
        return service(mr, turnServiceName(mr), spec.turnHost == null ? "ClusterIP" : "LoadBalancer",
                serving(ParleyApi.COMPONENT_TURN, PodFactory.turnPoolName(mr)),
                List.of(port("turn-udp", p, p, "UDP"), port("turn-tcp", p, p, "TCP")), hostAnnotation(spec.turnHost));
    }

    public static PodDisruptionBudget sfuPdb(SfuPool pool) {
        return pdb(pool, sfuPdbName(pool), serving(ParleyApi.COMPONENT_SFU, pool.getMetadata().getName()));
    }

    public static PodDisruptionBudget turnPdb(MediaRegion mr) {
        String turnPool = PodFactory.turnPoolName(mr);
        return pdb(mr, turnPool, serving(ParleyApi.COMPONENT_TURN, turnPool));
    }

    private static Service service(HasMetadata owner, String name, String type, Map<String, String> selector,
                                   List<ServicePort> ports, Map<String, String> annotations) {
        return new ServiceBuilder()
                .withNewMetadata().withName(name).withNamespace(owner.getMetadata().getNamespace())
                .withAnnotations(new LinkedHashMap<>(annotations))
                .addToLabels(ParleyApi.LABEL_MANAGED_BY, ParleyApi.MANAGED_BY)
                .withOwnerReferences(PodFactory.ownerRef(owner)).endMetadata()
                .withNewSpec().withType(type).withSelector(selector).withPorts(ports)
                // Media flows are long-lived: keep a client on the same TURN pod across reconnects.
                .withSessionAffinity("ClientIP")
                .endSpec().build();
    }

    /** Voluntary evictions (node drains) take at most one serving pod at a time; the operator itself deletes directly. */
    private static PodDisruptionBudget pdb(HasMetadata owner, String name, Map<String, String> selector) {
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName(name).withNamespace(owner.getMetadata().getNamespace())
                .addToLabels(ParleyApi.LABEL_MANAGED_BY, ParleyApi.MANAGED_BY)
                .withOwnerReferences(PodFactory.ownerRef(owner)).endMetadata()
                .withNewSpec().withMaxUnavailable(new IntOrString(1))
                .withNewSelector().withMatchLabels(selector).endSelector().endSpec().build();
    }

    private static ServicePort port(String name, int port, int target, String protocol) {
        return new ServicePortBuilder().withName(name).withPort(port).withTargetPort(new IntOrString(target))
                .withProtocol(protocol).build();
    }

    private static Map<String, String> hostAnnotation(String host) {
        return host == null ? Map.of() : Map.of("external-dns.alpha.kubernetes.io/hostname", host);
    }
}
