package dev.parley.operator.manifests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Validates a custom resource against a CRD's openAPIV3Schema the way the API server would for the parts we
 * use: defaults, types, required, unknown fields (reported, where the API server would silently prune them —
 * in a manifest that is a typo), enum, pattern, min/max, int-or-string, and the simple comparison CEL rules our
 * CRDs declare ({@code self.a <= self.b}, {@code self.a >= 2}). Transition rules (oldSelf) need an old object
 * and are skipped. An unsupported rule is reported, so new rules can't be silently unchecked.
 */
final class CrdSchemaValidator {
    private static final Pattern RULE = Pattern.compile("^self\\.(\\w+) (<=|>=|<|>|==) (?:self\\.(\\w+)|([0-9.]+))$");

    static List<String> validate(JsonNode resource, JsonNode openApiSchema) {
        List<String> errors = new ArrayList<>();
        JsonNode copy = resource.deepCopy();
        for (String top : List.of("spec", "status")) {
            JsonNode s = openApiSchema.path("properties").path(top);
            if (copy.has(top) && !s.isMissingNode()) {
                applyDefaults(copy.get(top), s);
                check(copy.get(top), s, "." + top, errors);
            }
        }
        return errors;
    }

    private static void applyDefaults(JsonNode value, JsonNode schema) {
        if (!value.isObject()) {
            if (value.isArray()) {
                value.forEach(v -> applyDefaults(v, schema.path("items")));
            }
            return;
        }
        ObjectNode o = (ObjectNode) value;
        for (Map.Entry<String, JsonNode> e : schema.path("properties").properties()) {
            if (!o.has(e.getKey()) && e.getValue().has("default")) {
                o.set(e.getKey(), e.getValue().get("default").deepCopy());
            }
            if (o.has(e.getKey())) {
                applyDefaults(o.get(e.getKey()), e.getValue());
            }
        }
    }

    private static void check(JsonNode v, JsonNode s, String path, List<String> errors) {
        if (s.path("x-kubernetes-int-or-string").asBoolean(false)) {
            if (!(v.isIntegralNumber() || v.isTextual())) {
                errors.add(path + ": must be an integer or a string");
            }
            return;
        }
        String type = s.path("type").asText("");
        switch (type) {
            case "object" -> {
                if (!v.isObject()) {
                    errors.add(path + ": must be an object");
                    return;
                }
                for (JsonNode r : s.path("required")) {
                    if (!v.has(r.asText())) {
                        errors.add(path + "." + r.asText() + ": required");
                    }
                }
                JsonNode props = s.path("properties");
                for (Map.Entry<String, JsonNode> e : v.properties()) {
                    if (props.has(e.getKey())) {
                        check(e.getValue(), props.get(e.getKey()), path + "." + e.getKey(), errors);
                    } else if (s.path("additionalProperties").isObject()) {
                        check(e.getValue(), s.get("additionalProperties"), path + "." + e.getKey(), errors);
                    } else if (!s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
                        errors.add(path + "." + e.getKey() + ": unknown field");
                    }
                }
                for (JsonNode rule : s.path("x-kubernetes-validations")) {
                    checkRule(v, rule, path, errors);
                }
            }
            case "array" -> {
                if (!v.isArray()) {
                    errors.add(path + ": must be an array");
                    return;
                }
                for (int i = 0; i < v.size(); i++) {
                    check(v.get(i), s.path("items"), path + "[" + i + "]", errors);
                }
            }
            case "string" -> {
                if (!v.isTextual()) {
                    errors.add(path + ": must be a string");
                    return;
                }
                if (s.has("enum")) {
                    boolean ok = false;
                    for (JsonNode e : s.get("enum")) {
                        ok |= e.asText().equals(v.asText());
                    }
                    if (!ok) {
                        errors.add(path + ": '" + v.asText() + "' not one of " + s.get("enum"));
                    }
                }
                if (s.has("pattern") && !Pattern.compile(s.get("pattern").asText()).matcher(v.asText()).find()) {
                    errors.add(path + ": '" + v.asText() + "' does not match " + s.get("pattern").asText());
                }
                if (s.has("minLength") && v.asText().length() < s.get("minLength").asInt()) {
                    errors.add(path + ": shorter than " + s.get("minLength").asInt());
                }
                if (s.has("maxLength") && v.asText().length() > s.get("maxLength").asInt()) {
                    errors.add(path + ": longer than " + s.get("maxLength").asInt());
                }
            }
            case "integer", "number" -> {
                if (type.equals("integer") ? !v.isIntegralNumber() : !v.isNumber()) {
                    errors.add(path + ": must be " + type);
                    return;
                }
                if (s.has("minimum") && v.asDouble() < s.get("minimum").asDouble()) {
                    errors.add(path + ": " + v + " < minimum " + s.get("minimum"));
                }
                if (s.has("maximum") && v.asDouble() > s.get("maximum").asDouble()) {
                    errors.add(path + ": " + v + " > maximum " + s.get("maximum"));
                }
            }
            case "boolean" -> {
                if (!v.isBoolean()) {
                    errors.add(path + ": must be boolean");
                }
            }
            default -> {
                // untyped schema: anything goes
            }
        }
    }

    private static void checkRule(JsonNode v, JsonNode rule, String path, List<String> errors) {
        String expr = rule.path("rule").asText();
        if (expr.contains("oldSelf")) {
            return;
        }
        Matcher m = RULE.matcher(expr);
        if (!m.matches()) {
            errors.add(path + ": CEL rule not understood by this checker: " + expr);
            return;
        }
        JsonNode left = v.get(m.group(1));
        JsonNode right = m.group(3) != null ? v.get(m.group(3)) : null;
        if (left == null || (m.group(3) != null && right == null)) {
            return; // CEL on an absent field is not evaluated by the API server either (no default)
        }
        double a = left.asDouble();
        double b = right != null ? right.asDouble() : Double.parseDouble(m.group(4));
        boolean ok = switch (m.group(2)) {
            case "<=" -> a <= b;
            case ">=" -> a >= b;
            case "<" -> a < b;
            case ">" -> a > b;
            default -> a == b;
        };
        if (!ok) {
            errors.add(path + ": " + rule.path("message").asText(expr));
        }
    }

    private CrdSchemaValidator() {
    }
}
