package dev.parley.operator.manifests;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Opens the operator tests' package-private CrdSchemaValidator to the chart tests. */
public final class CrdSchemas {
    private CrdSchemas() {
    }

    /** Problems of a custom resource against a CRD's openAPIV3Schema (empty: valid). */
    public static List<String> validate(JsonNode resource, JsonNode openApiSchema) {
        return CrdSchemaValidator.validate(resource, openApiSchema);
    }
}
