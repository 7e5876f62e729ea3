package dev.parley.controller.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;

import java.util.Map;

/** Renders RFC 9457 problem documents: {@code type, title, status, detail, code} plus extension members. */
public final class Problems {
    public static final MediaType PROBLEM_JSON = MediaType.of("application/problem+json");
    // a pooled factory: callers are virtual threads, whose per-thread buffer pools never get reused
    private static final ObjectMapper JSON = JsonMapper.builder(JsonBody.pooledFactory()).build();

    private Problems() {
    }

    public static String body(int status, String code, String detail, Map<String, Object> extra) {
        ObjectNode n = JSON.createObjectNode();
        n.put("type", "https://parley.dev/problems/" + code.replace('_', '-'));
        n.put("title", HttpStatus.valueOf(status).getReason());
        n.put("status", status);
        n.put("detail", detail);
        n.put("code", code);
        if (extra != null) {
            extra.forEach((k, v) -> n.set(k, JSON.valueToTree(v)));
        }
        return n.toString();
    }

    public static MutableHttpResponse<String> response(int status, String code, String detail, Map<String, Object> extra) {
        MutableHttpResponse<String> r = HttpResponse.<String>status(HttpStatus.valueOf(status))
                .contentType(PROBLEM_JSON)
                .body(body(status, code, detail, extra));
        if (status == 503) {
            r.header("Retry-After", "1");
        }
        return r;
    }

    public static MutableHttpResponse<String> of(ApiException e) {
        return response(e.status(), e.code(), e.getMessage(), e.extra());
    }

    /** Stable codes for statuses produced by the framework itself (routing, size limits, security). */
    public static String codeForStatus(int status) {
        return switch (status) {
            case 400 -> "bad_request";
            case 401 -> "unauthenticated";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 406 -> "not_acceptable";
            case 413 -> "payload_too_large";
            case 415 -> "unsupported_media_type";
            case 429 -> "too_many_requests";
            case 503 -> "unavailable";
            default -> status >= 500 ? "internal_error" : "client_error";
        };
    }
}
