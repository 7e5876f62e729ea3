package dev.parley.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.operator.manifests.CrdSchemas;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.platform.ticket.TicketVerifier;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** `helm template` of the chart with its defaults and with the values platform teams change. */
class ChartRenderTest {
    static final Set<String> CLUSTER_SCOPED = Set.of("Namespace", "ClusterRole", "ClusterRoleBinding");
    static Map<String, JsonNode> crdSchemas = new HashMap<>();

    @BeforeAll
    static void crds() throws Exception {
        for (Path p : HelmChart.crdFiles()) {
            JsonNode crd = Docs.YAML.readTree(p.toFile());
            crdSchemas.put(crd.at("/spec/names/kind").asText(), crd.at("/spec/versions/0/schema/openAPIV3Schema"));
        }
    }

    static String secretValue(List<JsonNode> docs, String name, String key) {
        JsonNode s = Docs.named(docs, "Secret", name);
        return new String(Base64.getDecoder().decode(s.at("/data/" + key.replace("/", "~1")).asText()), StandardCharsets.UTF_8);
    }

    static JsonNode container(List<JsonNode> docs, String kind, String name) {
        return Docs.named(docs, kind, name).at("/spec/template/spec/containers/0");
    }

    static void assertCustomResourcesValid(List<JsonNode> docs) {
        List<JsonNode> crs = docs.stream().filter(d -> d.path("apiVersion").asText().startsWith("parley.dev/")).toList();
        assertThat(crs).extracting(d -> d.path("kind").asText()).containsExactlyInAnyOrder("MediaRegion", "SfuPool");
        for (JsonNode cr : crs) {
            assertThat(CrdSchemas.validate(cr, crdSchemas.get(cr.path("kind").asText())))
                    .as("%s against its CRD", Docs.key(cr)).isEmpty();
        }
    }

    @Test
    void defaultValuesRender() {
        List<JsonNode> docs = HelmChart.render(Map.of());
        assertThat(docs).allSatisfy(d -> {
            assertThat(d.path("apiVersion").asText()).as("apiVersion of %s", Docs.key(d)).isNotBlank();
            assertThat(d.at("/metadata/name").asText()).as("name").isNotBlank();
            boolean namespaced = !CLUSTER_SCOPED.contains(d.path("kind").asText());
            assertThat(d.at("/metadata/namespace").asText()).as("namespace of %s", Docs.key(d))
                    .isEqualTo(namespaced ? "parley-system" : "");
            assertThat(d.at("/metadata/labels/app.kubernetes.io~1part-of").asText()).isEqualTo("parley");
        });
        Map<String, List<String>> byKind = docs.stream().collect(Collectors.groupingBy(d -> d.path("kind").asText(),
                LinkedHashMap::new, Collectors.mapping(d -> d.at("/metadata/name").asText(), Collectors.toList())));
        assertThat(byKind).doesNotContainKey("Namespace") // helm install --create-namespace
                .doesNotContainKey("Ingress").doesNotContainKey("ConfigMap");
        assertThat(byKind.get("Deployment")).containsExactlyInAnyOrder("parley-operator", "parley-controller");
        assertThat(byKind.get("StatefulSet")).containsExactlyInAnyOrder("parley-etcd", "parley-postgres");
        assertThat(byKind.get("Secret")).containsExactlyInAnyOrder("parley-internal", "parley-turn", "parley-ticket-key", "parley-db");
        assertThat(byKind.get("Role")).containsExactly("parley-operator-leader-election");
        assertCustomResourcesValid(docs);
        for (JsonNode w : docs) {
            if (w.at("/spec/template/spec/containers").isArray()) {
                for (JsonNode c : w.at("/spec/template/spec/containers")) {
                    assertThat(c.path("image").asText()).as("image of %s", Docs.key(w)).isNotBlank().doesNotEndWith(":latest").doesNotEndWith(":");
                    assertThat(c.has("readinessProbe") && c.has("livenessProbe")).as("probes of %s", Docs.key(w)).isTrue();
                    assertThat(c.has("imagePullPolicy")).as("no pull policy by default").isFalse();
                }
            }
        }
        JsonNode operator = container(docs, "Deployment", "parley-operator");
        assertThat(Docs.env(operator, "PARLEY_SFU_IMAGE").asText()).isEqualTo("ghcr.io/parley-dev/sfu-pod:0.1.0");
        assertThat(Docs.env(operator, "PARLEY_RECORDER_IMAGE").asText()).isEqualTo("ghcr.io/parley-dev/recorder-pod:0.1.0");
    }

    @Test
    void generatedSecretsAreRandomStrongAndKeptOnUninstall() {
        List<JsonNode> a = HelmChart.render(Map.of());
        List<JsonNode> b = HelmChart.render(Map.of());
        for (String[] s : new String[][] {{"parley-internal", "secret"}, {"parley-turn", "secrets"}, {"parley-db", "password"}}) {
            assertThat(secretValue(a, s[0], s[1])).as(s[0]).hasSizeGreaterThanOrEqualTo(32).isNotEqualTo(secretValue(b, s[0], s[1]));
            assertThat(Docs.named(a, "Secret", s[0]).at("/metadata/annotations/helm.sh~1resource-policy").asText()).isEqualTo("keep");
        }
    }

    @Test
    void generatedTicketKeyIsAnEs256PairTheControllerAndSfuAccept() throws Exception {
        List<JsonNode> docs = HelmChart.render(Map.of());
        String privateJwk = secretValue(docs, "parley-ticket-key", "private.jwk");
        String publicJwk = secretValue(docs, "parley-ticket-key", "public.jwk");
        // what the controller (PARLEY_TICKET_PRIVATE_JWK) and the SFU (PARLEY_TICKET_PUBLIC_JWK) do with them
        var signingKey = TicketKeys.parsePrivate(privateJwk);
        var publicKey = TicketKeys.parse(publicJwk);
        assertThat(publicKey.isPrivate()).as("public.jwk holds no private part").isFalse();
        assertThat(publicKey.getKeyID()).startsWith("parley-").isEqualTo(signingKey.getKeyID());
        var ticket = new TicketSigner(signingKey).issue("m1", "p1", 1, "eu1-sfu-abcde", null, Duration.ofSeconds(20));
        assertThat(new TicketVerifier(publicKey).verify(ticket.token(), "eu1-sfu-abcde").pid()).isEqualTo("p1");
        // another render is another key: a ticket of one is refused by the other
        var other = TicketKeys.parse(secretValue(HelmChart.render(Map.of()), "parley-ticket-key", "public.jwk"));
        assertThatThrownBy(() -> new TicketVerifier(other).verify(ticket.token(), "eu1-sfu-abcde"))
                .isInstanceOf(dev.parley.platform.ticket.TicketRejectedException.class);
    }

    @Test
    void anUpgradeKeepsTheGeneratedSecretsThatAreInTheCluster() {
        // a namespace of its own per run (a rerun must not meet the Secrets of the first run)
        String ns = "upgrade-" + Long.toHexString(System.nanoTime());
        List<JsonNode> first = HelmChart.render("parley", ns, List.of(), Map.of());
        KubeApiStandIn api = KubeApiStandIn.get();
        for (JsonNode s : Docs.ofKind(first, "Secret")) {
            Secret secret = api.client.getKubernetesSerialization().convertValue(s, Secret.class);
            api.client.secrets().inNamespace(ns).resource(secret).create();
        }
        List<JsonNode> upgrade = HelmChart.render("parley", ns, List.of(), Map.of());
        for (JsonNode s : Docs.ofKind(first, "Secret")) {
            assertThat(Docs.named(upgrade, "Secret", s.at("/metadata/name").asText()).get("data"))
                    .as("data of %s after an upgrade", Docs.key(s)).isEqualTo(s.get("data"));
        }
        // a value given later replaces the generated one
        List<JsonNode> given = HelmChart.render("parley", ns, List.of(), Map.of("secrets.internal.value", "from-values-0123456789"));
        assertThat(secretValue(given, "parley-internal", "secret")).isEqualTo("from-values-0123456789");
        assertThat(Docs.named(given, "Secret", "parley-internal").at("/metadata/annotations").isMissingNode()).isTrue();
    }

    @Test
    void existingSecretsAreReferencedEverywhereAndNotRendered() {
        List<JsonNode> docs = HelmChart.render("acme", "media", List.of(), Map.of(
                "secrets.internal.existingSecret", "vault-internal",
                "secrets.turn.existingSecret", "vault-turn",
                "secrets.ticketKey.existingSecret", "vault-ticket",
                "postgresql.auth.existingSecret", "vault-db"));
        assertThat(Docs.ofKind(docs, "Secret")).isEmpty();
        JsonNode operator = container(docs, "Deployment", "acme-parley-operator");
        JsonNode controller = container(docs, "Deployment", "acme-parley-controller");
        // the operator hands these names to the media pods it creates
        assertThat(Docs.env(operator, "PARLEY_INTERNAL_SECRET_NAME").asText()).isEqualTo("vault-internal");
        assertThat(Docs.env(operator, "PARLEY_TURN_SECRET_NAME").asText()).isEqualTo("vault-turn");
        assertThat(Docs.env(operator, "PARLEY_TICKET_KEY_SECRET_NAME").asText()).isEqualTo("vault-ticket");
        assertThat(Docs.env(operator, "PARLEY_INTERNAL_SECRET").at("/secretKeyRef/name").asText()).isEqualTo("vault-internal");
        assertThat(Docs.env(controller, "PARLEY_TURN_SECRETS").at("/secretKeyRef/name").asText()).isEqualTo("vault-turn");
        assertThat(Docs.env(controller, "PARLEY_TICKET_PRIVATE_JWK").at("/secretKeyRef/name").asText()).isEqualTo("vault-ticket");
        assertThat(Docs.env(controller, "PARLEY_DB_PASSWORD").at("/secretKeyRef/name").asText()).isEqualTo("vault-db");
        assertThat(Docs.env(container(docs, "StatefulSet", "acme-parley-postgres"), "POSTGRES_PASSWORD")
                .at("/secretKeyRef/name").asText()).isEqualTo("vault-db");
    }

    @Test
    void givenTicketJwksMustComeAsAPair() {
        assertThatThrownBy(() -> HelmChart.render(Map.of("secrets.ticketKey.privateJwk", "{}")))
                .hasMessageContaining("secrets.ticketKey: set both privateJwk and publicJwk, or neither");
    }

    @Test
    void anotherReleaseNamePrefixesEveryNameAndTheRegionFollowsTheController() {
        List<JsonNode> docs = HelmChart.render("acme", "media", List.of(), Map.of());
        assertThat(docs).allSatisfy(d -> {
            if (!d.path("apiVersion").asText().startsWith("parley.dev/")) {
                assertThat(d.at("/metadata/name").asText()).as(Docs.key(d)).startsWith("acme-parley-");
            }
        });
        JsonNode region = Docs.named(docs, "MediaRegion", "eu1");
        JsonNode controller = Docs.named(docs, "Deployment", "acme-parley-controller");
        // the operator's signaling Service selects app.kubernetes.io/name=<controllerSelector>
        assertThat(region.at("/spec/controllerSelector").asText())
                .isEqualTo(controller.at("/spec/template/metadata/labels/app.kubernetes.io~1name").asText());
        assertThat(Docs.env(controller.at("/spec/template/spec/containers/0"), "PARLEY_ETCD_ENDPOINTS").asText())
                .isEqualTo("http://acme-parley-etcd:2379");
        assertThat(Docs.named(docs, "ClusterRoleBinding", "acme-parley-operator").at("/subjects/0/namespace").asText()).isEqualTo("media");
        assertThat(Docs.named(docs, "StatefulSet", "acme-parley-etcd").at("/spec/template/spec/containers/0/command").toString())
                .contains("--initial-cluster=acme-parley-etcd-0=http://acme-parley-etcd-0.acme-parley-etcd-peers.$(POD_NAMESPACE).svc:2380,"
                        + "acme-parley-etcd-1=http://acme-parley-etcd-1.acme-parley-etcd-peers.$(POD_NAMESPACE).svc:2380,"
                        + "acme-parley-etcd-2=http://acme-parley-etcd-2.acme-parley-etcd-peers.$(POD_NAMESPACE).svc:2380\"");
    }

    @Test
    void mediaPlacementAndPullPoliciesGoIntoThePoolTemplates() {
        Map<String, String> set = new LinkedHashMap<>();
        set.put("media.nodeSelector.parley\\.dev/media", "yes");
        set.put("media.tolerations[0].key", "dedicated");
        set.put("media.tolerations[0].operator", "Equal");
        set.put("media.tolerations[0].value", "media");
        set.put("media.tolerations[0].effect", "NoSchedule");
        set.put("media.priorityClassName", "media-critical");
        set.put("images.sfu.pullPolicy", "IfNotPresent");
        set.put("images.turn.pullPolicy", "Always");
        set.put("exampleRegion.turn.template.priorityClassName", "turn-only");   // the pool's own value wins
        set.put("exampleRegion.sfuPool.mediaUdpPort", "20000");
        set.put("controller.nodeSelector.pool", "control");
        set.put("operator.tolerations[0].operator", "Exists");
        List<JsonNode> docs = HelmChart.render(set);
        assertCustomResourcesValid(docs);
        JsonNode sfu = Docs.named(docs, "SfuPool", "eu1-sfu").at("/spec/template");
        JsonNode turn = Docs.named(docs, "MediaRegion", "eu1").at("/spec/turn/template");
        for (JsonNode t : List.of(sfu, turn)) {
            assertThat(t.at("/nodeSelector/parley.dev~1media").asText()).isEqualTo("yes");
            assertThat(t.at("/tolerations/0/key").asText()).isEqualTo("dedicated");
            assertThat(t.at("/tolerations/0/effect").asText()).isEqualTo("NoSchedule");
        }
        assertThat(sfu.path("priorityClassName").asText()).isEqualTo("media-critical");
        assertThat(turn.path("priorityClassName").asText()).isEqualTo("turn-only");
        assertThat(sfu.path("imagePullPolicy").asText()).isEqualTo("IfNotPresent");
        assertThat(turn.path("imagePullPolicy").asText()).isEqualTo("Always");
        assertThat(sfu.path("hostNetwork").asBoolean()).as("the example's own template stays").isTrue();
        assertThat(Docs.named(docs, "SfuPool", "eu1-sfu").at("/spec/mediaUdpPort").asInt()).isEqualTo(20000);
        // the chart's own pods take their placement from their own values, not from media.*
        assertThat(Docs.named(docs, "Deployment", "parley-controller").at("/spec/template/spec/nodeSelector").toString())
                .isEqualTo("{\"pool\":\"control\"}");
        assertThat(Docs.named(docs, "Deployment", "parley-operator").at("/spec/template/spec/tolerations/0/operator").asText()).isEqualTo("Exists");
        assertThat(Docs.named(docs, "StatefulSet", "parley-etcd").at("/spec/template/spec/nodeSelector").isMissingNode()).isTrue();
    }

    @Test
    void externalEtcdAndDatabaseReplaceTheBundledOnes() {
        List<JsonNode> docs = HelmChart.render(Map.of(
                "etcd.enabled", "false",
                "etcd.external.endpoints", "http://etcd-a:2379,http://etcd-b:2379",
                "postgresql.enabled", "false",
                "postgresql.external.jdbcUrl", "jdbc:postgresql://parley-db-rw:5432/parley",
                "postgresql.external.existingSecret", "parley-db-app"));
        assertThat(docs).noneMatch(d -> d.at("/metadata/name").asText().matches("parley-(etcd|postgres|db)(-.*)?"));
        JsonNode controller = container(docs, "Deployment", "parley-controller");
        JsonNode operator = container(docs, "Deployment", "parley-operator");
        assertThat(Docs.env(controller, "PARLEY_ETCD_ENDPOINTS").asText()).isEqualTo("http://etcd-a:2379,http://etcd-b:2379");
        assertThat(Docs.env(operator, "PARLEY_ETCD_ENDPOINTS").asText()).isEqualTo("http://etcd-a:2379,http://etcd-b:2379");
        assertThat(Docs.env(controller, "PARLEY_DB_URL").asText()).isEqualTo("jdbc:postgresql://parley-db-rw:5432/parley");
        assertThat(Docs.env(controller, "PARLEY_DB_USER").asText()).isEqualTo("parley");
        assertThat(Docs.env(controller, "PARLEY_DB_PASSWORD").at("/secretKeyRef").toString())
                .isEqualTo("{\"name\":\"parley-db-app\",\"key\":\"password\"}");
    }

    @Test
    void ingressTerminatesTlsForTheControllerApi() {
        List<JsonNode> docs = HelmChart.render(Map.of(
                "ingress.enabled", "true", "ingress.className", "nginx", "ingress.host", "meet.eu1.example.com",
                "ingress.tls.enabled", "true", "ingress.tls.secretName", "meet-eu1-tls",
                "ingress.annotations.cert-manager\\.io/cluster-issuer", "letsencrypt"));
        JsonNode ing = Docs.named(docs, "Ingress", "parley-controller");
        assertThat(ing.at("/spec/tls/0/secretName").asText()).isEqualTo("meet-eu1-tls");
        assertThat(ing.at("/spec/tls/0/hosts/0").asText()).isEqualTo("meet.eu1.example.com");
        assertThat(ing.at("/spec/rules/0/host").asText()).isEqualTo("meet.eu1.example.com");
        assertThat(ing.at("/spec/rules/0/http/paths/0/backend/service").toString())
                .isEqualTo("{\"name\":\"parley-controller\",\"port\":{\"name\":\"http\"}}");
        assertThat(ing.at("/spec/ingressClassName").asText()).isEqualTo("nginx");
        assertThat(ing.at("/metadata/annotations/cert-manager.io~1cluster-issuer").asText()).isEqualTo("letsencrypt");
        assertThatThrownBy(() -> HelmChart.render(Map.of("ingress.enabled", "true", "ingress.host", "x.example.com", "ingress.tls.enabled", "true")))
                .hasMessageContaining("ingress.tls.secretName");
    }

    @Test
    void recordingsAndAuthValuesFillTheConfigMapsTheWorkloadsAlreadyReference() {
        List<JsonNode> docs = HelmChart.render(Map.of(
                "recordings.bucket", "recordings", "recordings.endpoint", "https://s3.example.com",
                "recordings.credentials.accessKey", "AKIA-TEST", "recordings.credentials.secretKey", "s3-secret-test",
                "controller.auth.jwksUrl", "https://idp.example.com/jwks.json"));
        assertThat(Docs.named(docs, "ConfigMap", "parley-recordings").get("data").toString())
                .isEqualTo("{\"bucket\":\"recordings\",\"endpoint\":\"https://s3.example.com\"}");
        assertThat(Docs.named(docs, "ConfigMap", "parley-auth").at("/data/jwks-url").asText()).isEqualTo("https://idp.example.com/jwks.json");
        assertThat(secretValue(docs, "parley-recordings-s3", "accessKey")).isEqualTo("AKIA-TEST");
        JsonNode controller = container(docs, "Deployment", "parley-controller");
        JsonNode operator = container(docs, "Deployment", "parley-operator");
        assertThat(Docs.env(controller, "PARLEY_S3_BUCKET").at("/configMapKeyRef/name").asText()).isEqualTo("parley-recordings");
        assertThat(Docs.env(controller, "PARLEY_S3_SECRET_KEY").at("/secretKeyRef/name").asText()).isEqualTo("parley-recordings-s3");
        assertThat(Docs.env(controller, "PARLEY_JWKS_URL").at("/configMapKeyRef/name").asText()).isEqualTo("parley-auth");
        assertThat(Docs.env(operator, "PARLEY_RECORDING_BUCKET").at("/configMapKeyRef/name").asText()).isEqualTo("parley-recordings");
        assertThat(Docs.env(operator, "PARLEY_RECORDING_CREDENTIALS_SECRET").asText()).isEqualTo("parley-recordings-s3");
    }

    @Test
    void leaderElectionOffMeansOneOperatorAndNoLeaseRole() {
        List<JsonNode> docs = HelmChart.render(Map.of("operator.leaderElection", "false", "operator.replicas", "1"));
        assertThat(Docs.ofKind(docs, "Role")).isEmpty();
        assertThat(Docs.env(container(docs, "Deployment", "parley-operator"), "PARLEY_LEADER_ELECTION").asText()).isEqualTo("false");
        assertThat(Docs.named(docs, "Deployment", "parley-operator").at("/spec/replicas").asInt()).isEqualTo(1);
    }

    @Test
    void withoutTheExampleRegionNoCustomResourcesAreRendered() throws Exception {
        List<JsonNode> docs = HelmChart.render(Map.of("exampleRegion.enabled", "false"));
        assertThat(docs).noneMatch(d -> d.path("apiVersion").asText().startsWith("parley.dev/"));
        assertThat(Files.readString(HelmChart.CHART.resolve("values.yaml"))).contains("exampleRegion:");
    }
}
