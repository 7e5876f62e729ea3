package dev.parley.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Field-by-field differences between the objects of manifests/base and of the chart. Both sides are compared
 * whole, after a normalization that removes only what is Helm's own bookkeeping: Helm's labels, and container
 * env turned into a map by name (order carries no meaning; a name twice is reported); numbers compare by value
 * (1 and 1.0 are one JSON number). Env the chart sets and the
 * base leaves to the program's default is accepted only when its value is that default.
 */
final class ObjectDrift {
    /** Labels only Helm adds (the kustomize base has none of them). */
    static final Set<String> HELM_LABELS = Set.of("helm.sh/chart", "app.kubernetes.io/managed-by",
            "app.kubernetes.io/instance", "app.kubernetes.io/version");

    private final Map<String, String> chartOnlyEnvDefaults;
    private final List<String> diffs = new ArrayList<>();

    /** @param chartOnlyEnvDefaults env names the chart may set where the base relies on the default, with that default */
    ObjectDrift(Map<String, String> chartOnlyEnvDefaults) {
        this.chartOnlyEnvDefaults = chartOnlyEnvDefaults;
    }

    List<String> diffs() {
        return diffs;
    }

    void compare(String key, JsonNode base, JsonNode chart) {
        compare(key + " ", normalize(base.deepCopy()), normalize(chart.deepCopy(), key + " "), "");
    }

    private JsonNode normalize(JsonNode o) {
        return normalize(o, null);
    }

    /** @param chartKey non-null on the chart side: chart-only env is checked against the defaults and dropped */
    private JsonNode normalize(JsonNode o, String chartKey) {
        stripHelmLabels(o.path("metadata"));
        stripHelmLabels(o.at("/spec/template/metadata"));
        JsonNode podSpec = o.at("/spec/template/spec");
        for (String list : List.of("containers", "initContainers")) {
            for (JsonNode c : podSpec.path(list)) {
                if (c.has("env")) {
                    ((ObjectNode) c).set("env", envByName((ArrayNode) c.get("env"), chartKey, c.path("name").asText()));
                }
            }
        }
        return o;
    }

    private static void stripHelmLabels(JsonNode metadata) {
        if (metadata instanceof ObjectNode m && m.get("labels") instanceof ObjectNode labels) {
            HELM_LABELS.forEach(labels::remove);
            if (labels.isEmpty()) {
                m.remove("labels");
            }
        }
    }

    private ObjectNode envByName(ArrayNode env, String chartKey, String container) {
        ObjectNode out = Docs.YAML.createObjectNode();
        for (JsonNode e : env) {
            String name = e.path("name").asText();
            ObjectNode rest = e.deepCopy();
            rest.remove("name");
            if (out.has(name)) {
                diffs.add((chartKey == null ? "base " : chartKey) + "container " + container + ": env " + name + " twice");
            }
            out.set(name, rest);
        }
        if (chartKey != null) {
            for (var d : chartOnlyEnvDefaults.entrySet()) {
                JsonNode v = out.get(d.getKey());
                if (v == null) {
                    continue;
                }
                if (!d.getValue().equals(v.path("value").asText(null))) {
                    diffs.add(chartKey + "container " + container + ": env " + d.getKey() + "=" + v
                            + ", but the base leaves it to the default \"" + d.getValue() + "\"");
                }
                out.remove(d.getKey());
            }
        }
        return out;
    }

    private void compare(String key, JsonNode base, JsonNode chart, String path) {
        if (base.isObject() && chart.isObject()) {
            Set<String> names = new TreeSet<>();
            base.fieldNames().forEachRemaining(names::add);
            chart.fieldNames().forEachRemaining(names::add);
            for (String n : names) {
                String p = path + "." + n;
                if (!chart.has(n)) {
                    diffs.add(key + p + ": base " + base.get(n) + ", chart has none");
                } else if (!base.has(n)) {
                    diffs.add(key + p + ": chart " + chart.get(n) + ", base has none");
                } else {
                    compare(key, base.get(n), chart.get(n), p);
                }
            }
        } else if (base.isArray() && chart.isArray()) {
            Iterator<JsonNode> b = base.elements();
            Iterator<JsonNode> c = chart.elements();
            int i = 0;
            while (b.hasNext() && c.hasNext()) {
                compare(key, b.next(), c.next(), path + "[" + i++ + "]");
            }
            if (base.size() != chart.size()) {
                diffs.add(key + path + ": base has " + base.size() + " items, chart " + chart.size()
                        + " (base " + base + ", chart " + chart + ")");
            }
        } else if (base.isNumber() && chart.isNumber()) {
            // JSON numbers, as the API server keeps them: kustomize writes the CRDs' "minimum: 1.0" as 1
            if (base.decimalValue().compareTo(chart.decimalValue()) != 0) {
                diffs.add(key + path + ": base " + base + ", chart " + chart);
            }
        } else if (!base.equals(chart)) {
            diffs.add(key + path + ": base " + base + ", chart " + chart);
        }
    }
}
