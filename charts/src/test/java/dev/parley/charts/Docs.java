package dev.parley.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Multi-document YAML (kubectl kustomize, helm template output) as Kubernetes objects. */
final class Docs {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private Docs() {
    }

    static List<JsonNode> parse(String yaml) {
        List<JsonNode> docs = new ArrayList<>();
        try (var parser = YAML.getFactory().createParser(yaml)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode n = it.next();
                if (n != null && !n.isNull() && !n.isMissingNode()) {
                    docs.add(n);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    /** "Kind/namespace/name" ("-" for cluster-scoped objects). */
    static String key(JsonNode o) {
        String ns = o.at("/metadata/namespace").asText("");
        return o.path("kind").asText() + "/" + (ns.isEmpty() ? "-" : ns) + "/" + o.at("/metadata/name").asText();
    }

    /** Objects by {@link #key}; a key seen twice is an error (two objects would collide in the cluster). */
    static Map<String, JsonNode> byKey(List<JsonNode> docs) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode d : docs) {
            if (out.put(key(d), d) != null) {
                throw new IllegalStateException("two objects " + key(d));
            }
        }
        return out;
    }

    static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
    }

    static JsonNode named(List<JsonNode> docs, String kind, String name) {
        return ofKind(docs, kind).stream().filter(d -> name.equals(d.at("/metadata/name").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + "/" + name + " in " + docs.stream().map(Docs::key).toList()));
    }

    /** value or valueFrom of a container's env var, or null when it has none. */
    static JsonNode env(JsonNode container, String name) {
        for (JsonNode e : container.path("env")) {
            if (name.equals(e.path("name").asText())) {
                return e.has("value") ? e.get("value") : e.get("valueFrom");
            }
        }
        return null;
    }
}
