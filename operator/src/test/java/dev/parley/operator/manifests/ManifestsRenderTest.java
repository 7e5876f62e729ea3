package dev.parley.operator.manifests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Renders every kustomize overlay with the real kubectl and checks what a cluster would receive. */
class ManifestsRenderTest {
    static final Path MANIFESTS = Path.of("..", "manifests");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static Stream<String> overlays() throws IOException {
        try (Stream<Path> s = Files.list(MANIFESTS.resolve("overlays"))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList().stream();
        }
    }

    static List<JsonNode> render(String overlay) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/usr/bin/kubectl", "kustomize", MANIFESTS.resolve("overlays").resolve(overlay).toString())
                .redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("kubectl kustomize %s: %s", overlay, err).isZero();
        List<JsonNode> docs = new ArrayList<>();
        try (var parser = YAML.getFactory().createParser(out)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode n = it.next();
                if (n != null && !n.isNull()) {
                    docs.add(n);
                }
            }
        }
        return docs;
    }

    static Map<String, JsonNode> committedCrdSchemas() throws IOException {
        Map<String, JsonNode> byKind = new HashMap<>();
        try (Stream<Path> s = Files.list(Path.of("..", "crds"))) {
            for (Path p : s.filter(x -> x.toString().endsWith(".yml")).toList()) {
                JsonNode crd = YAML.readTree(p.toFile());
                byKind.put(crd.at("/spec/names/kind").asText(), crd.at("/spec/versions/0/schema/openAPIV3Schema"));
            }
        }
        return byKind;
    }

    private static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
    }

    @Test
    void thereAreDevAndProductionOverlays() throws IOException {
        assertThat(overlays().toList()).contains("dev", "production");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void overlayRendersWithCrdsValidCustomResourcesImagesAndProbes(String overlay) throws Exception {
        List<JsonNode> docs = render(overlay);
        assertThat(ofKind(docs, "CustomResourceDefinition")).extracting(d -> d.at("/metadata/name").asText())
                .containsExactlyInAnyOrder("mediaregions.parley.dev", "sfupools.parley.dev", "recordingjobs.parley.dev");
        assertThat(ofKind(docs, "Namespace")).extracting(d -> d.at("/metadata/name").asText()).contains("parley-system");

        Map<String, JsonNode> schemas = committedCrdSchemas();
        List<JsonNode> crs = docs.stream().filter(d -> d.path("apiVersion").asText().startsWith("parley.dev/")).toList();
        assertThat(crs).extracting(d -> d.path("kind").asText()).contains("MediaRegion", "SfuPool");
        for (JsonNode cr : crs) {
            assertThat(CrdSchemaValidator.validate(cr, schemas.get(cr.path("kind").asText())))
                    .as("%s %s against its CRD", cr.path("kind").asText(), cr.at("/metadata/name").asText()).isEmpty();
        }

        int workloads = 0;
        for (JsonNode d : docs) {
            String kind = d.path("kind").asText();
            if (!kind.equals("Deployment") && !kind.equals("StatefulSet")) {
                continue;
            }
            workloads++;
            for (JsonNode c : d.at("/spec/template/spec/containers")) {
                String what = overlay + " " + kind + "/" + d.at("/metadata/name").asText() + " container " + c.path("name").asText();
                assertThat(c.path("image").asText()).as(what + " image").isNotBlank().doesNotEndWith(":latest");
                assertThat(c.has("readinessProbe")).as(what + " readinessProbe").isTrue();
                assertThat(c.has("livenessProbe")).as(what + " livenessProbe").isTrue();
                if (overlay.equals("production")) {
                    assertThat(c.path("image").asText()).as(what + " pinned image").doesNotEndWith(":dev");
                }
            }
        }
        assertThat(workloads).isGreaterThanOrEqualTo(3);
        // controller, operator and etcd present; etcd has three members
        assertThat(ofKind(docs, "StatefulSet")).anySatisfy(s -> {
            assertThat(s.at("/metadata/name").asText()).isEqualTo("parley-etcd");
            assertThat(s.at("/spec/replicas").asInt()).isEqualTo(3);
        });
        assertThat(ofKind(docs, "PodDisruptionBudget")).extracting(d -> d.at("/metadata/name").asText()).contains("parley-controller");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void operatorRbacIsLeastPrivilege(String overlay) throws Exception {
        List<JsonNode> docs = render(overlay);
        JsonNode role = ofKind(docs, "ClusterRole").stream()
                .filter(r -> r.at("/metadata/name").asText().equals("parley-operator")).findFirst().orElseThrow();
        for (JsonNode rule : role.path("rules")) {
            assertThat(rule.path("verbs").toString()).doesNotContain("\"*\"");
            assertThat(rule.path("resources").toString()).doesNotContain("\"*\"").doesNotContain("secrets");
            assertThat(rule.path("apiGroups").toString()).doesNotContain("\"*\"");
        }
        // leases only through a namespaced Role
        assertThat(role.path("rules").toString()).doesNotContain("leases");
        assertThat(ofKind(docs, "Role")).anySatisfy(r -> assertThat(r.path("rules").toString()).contains("leases"));
    }

    @Test
    void productionUsesCloudNativePgAndGeneratesNoDevSecrets() throws Exception {
        List<JsonNode> prod = render("production");
        assertThat(ofKind(prod, "Secret")).isEmpty();
        assertThat(ofKind(prod, "StatefulSet")).noneMatch(s -> s.at("/metadata/name").asText().equals("parley-postgres"));
        assertThat(ofKind(prod, "Cluster")).singleElement()
                .satisfies(c -> assertThat(c.path("apiVersion").asText()).startsWith("postgresql.cnpg.io/"));
        JsonNode controller = ofKind(prod, "Deployment").stream()
                .filter(d -> d.at("/metadata/name").asText().equals("parley-controller")).findFirst().orElseThrow();
        assertThat(controller.toString()).contains("jdbc:postgresql://parley-db-rw:5432/parley");

        List<JsonNode> dev = render("dev");
        assertThat(ofKind(dev, "Secret")).extracting(d -> d.at("/metadata/name").asText())
                .contains("parley-turn", "parley-internal", "parley-db", "parley-ticket-key");
        assertThat(ofKind(dev, "StatefulSet")).anyMatch(s -> s.at("/metadata/name").asText().equals("parley-postgres"));
    }

    /** The JVM workloads get a startup probe, so a slow first start (JIT, etcd/DB connect) is not killed by liveness. */
    @ParameterizedTest
    @MethodSource("overlays")
    void jvmDeploymentsHaveStartupProbes(String overlay) throws Exception {
        List<JsonNode> docs = render(overlay);
        for (String name : List.of("parley-operator", "parley-controller")) {
            JsonNode d = ofKind(docs, "Deployment").stream().filter(x -> x.at("/metadata/name").asText().equals(name))
                    .findFirst().orElseThrow();
            JsonNode c = d.at("/spec/template/spec/containers/0");
            assertThat(c.path("startupProbe").path("httpGet").path("path").asText())
                    .as(overlay + " " + name + " startupProbe").isEqualTo(c.at("/livenessProbe/httpGet/path").asText());
            assertThat(c.at("/startupProbe/failureThreshold").asInt() * c.at("/startupProbe/periodSeconds").asInt())
                    .as(overlay + " " + name + " startup budget (s)").isGreaterThanOrEqualTo(60);
        }
    }

    /**
     * Overlays patch list entries by name (strategic merge on containers and env), never by position: a JSON6902
     * path like {@code env/6} silently hits another variable once the base's list changes.
     */
    @ParameterizedTest
    @MethodSource("overlays")
    void overlayPatchesNoListEntryByIndex(String overlay) throws Exception {
        JsonNode k = YAML.readTree(MANIFESTS.resolve("overlays").resolve(overlay).resolve("kustomization.yaml").toFile());
        for (JsonNode patch : k.path("patches")) {
            JsonNode body = YAML.readTree(patch.path("patch").asText("{}"));
            if (body != null && body.isArray()) {
                for (JsonNode op : body) {
                    assertThat(op.path("path").asText()).as(overlay + " JSON6902 path").doesNotMatch(".*/[0-9]+(/.*)?");
                }
            }
        }
        assertThat(k.has("patchesJson6902")).as(overlay + " patchesJson6902").isFalse();
    }

    /** What the production overlay changes lands on the variables it names. */
    @Test
    void productionPatchesReachTheirTargets() throws Exception {
        List<JsonNode> prod = render("production");
        JsonNode controller = ofKind(prod, "Deployment").stream()
                .filter(d -> d.at("/metadata/name").asText().equals("parley-controller")).findFirst().orElseThrow();
        assertThat(controller.at("/spec/replicas").asInt()).isEqualTo(3);
        Map<String, JsonNode> env = new HashMap<>();
        controller.at("/spec/template/spec/containers/0/env").forEach(e -> env.put(e.path("name").asText(), e));
        assertThat(env.get("PARLEY_DB_URL").path("value").asText()).isEqualTo("jdbc:postgresql://parley-db-rw:5432/parley");
        assertThat(env.get("PARLEY_DB_PASSWORD").at("/valueFrom/secretKeyRef/name").asText()).isEqualTo("parley-db-app");
        assertThat(env.get("PARLEY_DB_PASSWORD").at("/valueFrom/secretKeyRef/key").asText()).isEqualTo("password");
        assertThat(env.get("PARLEY_DB_USER").path("value").asText()).isEqualTo("parley");
        JsonNode etcd = ofKind(prod, "StatefulSet").stream()
                .filter(d -> d.at("/metadata/name").asText().equals("parley-etcd")).findFirst().orElseThrow();
        assertThat(etcd.at("/spec/volumeClaimTemplates").size()).isEqualTo(1);
        assertThat(etcd.at("/spec/volumeClaimTemplates/0/metadata/name").asText()).isEqualTo("data");
        assertThat(etcd.at("/spec/volumeClaimTemplates/0/spec/resources/requests/storage").asText()).isEqualTo("20Gi");

        List<JsonNode> dev = render("dev");
        JsonNode operator = ofKind(dev, "Deployment").stream()
                .filter(d -> d.at("/metadata/name").asText().equals("parley-operator")).findFirst().orElseThrow();
        Map<String, String> opEnv = new HashMap<>();
        operator.at("/spec/template/spec/containers/0/env").forEach(e -> opEnv.put(e.path("name").asText(), e.path("value").asText()));
        assertThat(opEnv).containsEntry("PARLEY_SFU_IMAGE", "parley/sfu-pod:dev").containsEntry("PARLEY_TURN_IMAGE", "parley/turn-pod:dev")
                .containsEntry("PARLEY_RECORDER_IMAGE", "parley/recorder-pod:dev");
        assertThat(operator.at("/spec/template/spec/containers/0/imagePullPolicy").asText()).isEqualTo("IfNotPresent");
    }

    @Test
    void validatorRejectsBrokenCustomResources() throws Exception {
        Map<String, JsonNode> schemas = committedCrdSchemas();
        JsonNode bad = YAML.readTree("""
                apiVersion: parley.dev/v1alpha1
                kind: SfuPool
                metadata: {name: bad}
                spec:
                  region: Not_A_Dns_Label
                  minReplicas: 5
                  maxReplicas: 3
                  autoscaling: {mode: Sometimes, scaleUpThreshold: 0.2, scaleDownThreshold: 0.5}
                  typoField: 1
                """);
        List<String> errors = CrdSchemaValidator.validate(bad, schemas.get("SfuPool"));
        assertThat(errors).anyMatch(e -> e.contains("region") && e.contains("does not match"))
                .anyMatch(e -> e.contains("minReplicas must be <= maxReplicas"))
                .anyMatch(e -> e.contains("Sometimes"))
                .anyMatch(e -> e.contains("scaleDownThreshold must be below scaleUpThreshold"))
                .anyMatch(e -> e.contains("typoField") && e.contains("unknown field"));
        JsonNode oneSfu = YAML.readTree("""
                apiVersion: parley.dev/v1alpha1
                kind: SfuPool
                metadata: {name: one}
                spec: {region: eu1, minReplicas: 1}
                """);
        assertThat(CrdSchemaValidator.validate(oneSfu, schemas.get("SfuPool")))
                .anyMatch(e -> e.contains("minReplicas >= 2") || e.contains("minimum"));
        JsonNode noRegion = YAML.readTree("""
                apiVersion: parley.dev/v1alpha1
                kind: MediaRegion
                metadata: {name: x}
                spec: {turn: {minReplicas: 4, maxReplicas: 2}}
                """);
        assertThat(CrdSchemaValidator.validate(noRegion, schemas.get("MediaRegion")))
                .anyMatch(e -> e.contains(".spec.region: required"))
                .anyMatch(e -> e.contains("turn.minReplicas must be <= turn.maxReplicas"));
    }
}
