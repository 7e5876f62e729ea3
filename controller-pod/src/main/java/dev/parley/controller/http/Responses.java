package dev.parley.controller.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;

/** JSON answers rendered by us (Jackson), so the wire format is exactly what docs/api.md shows. */
public final class Responses {
    private Responses() {
    }

    public static HttpResponse<String> json(int status, JsonNode body) {
        return HttpResponse.<String>status(HttpStatus.valueOf(status)).contentType(MediaType.APPLICATION_JSON_TYPE)
                .body(JsonBody.write(body));
    }
}
