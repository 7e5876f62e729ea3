package dev.parley.recorder.manifest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;

/** JSON for the manifest: snake_case, no nulls, stable field order. */
public final class ManifestCodec {
    public static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(SerializationFeature.INDENT_OUTPUT, true);

    private ManifestCodec() {
    }

    public static byte[] encode(Manifest m) {
        try {
            return JSON.writeValueAsBytes(m);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Manifest decode(byte[] json) {
        try {
            return JSON.readValue(json, Manifest.class);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable manifest", e);
        }
    }
}
