package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

/**
 * The public REST API (docs/api.md) as the load client uses it, through the front door. {@link #retrying} resends a
 * state-changing request with the SAME Idempotency-Key on 5xx and I/O errors, as docs/api.md asks
 * ({@code 503 lease_in_doubt}, {@code owner_changed}, {@code owner_unavailable}: retry with the same key).
 */
final class Api {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
        .version(HttpClient.Version.HTTP_1_1).build();
    final String base;
    final String tenant = UUID.randomUUID().toString();

    Api(String base) {
        this.base = base;
    }

    record Reply(int status, JsonNode body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        String code() {
            return body == null ? "" : body.path("code").asText("");
        }
    }

    /** One attempt; status -1 for an I/O error or timeout. */
    Reply call(String method, String path, String token, Object body, String key) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(8))
                .header("Content-Type", "application/json");
            if (token != null) b.header("Authorization", "Bearer " + token);
            if (key != null) b.header("Idempotency-Key", key);
            String text = body == null ? null : body instanceof String s ? s : JSON.writeValueAsString(body);
            b.method(method, text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text));
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = r.body() == null || r.body().isBlank() ? JSON.createObjectNode() : parse(r.body());
            return new Reply(r.statusCode(), json);
        } catch (IOException e) {
            return new Reply(-1, JSON.createObjectNode().put("code", "io").put("detail", String.valueOf(e.getMessage())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(-1, JSON.createObjectNode().put("code", "interrupted"));
        }
    }

    private static JsonNode parse(String s) {
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            return JSON.createObjectNode().put("code", "not_json");
        }
    }

    /** Same request, same key, until a non-5xx answer or {@code within} has passed (then the last answer). */
    Reply retrying(String method, String path, String token, Object body, String key, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        long backoff = 200;
        while (true) {
            Reply r = call(method, path, token, body, key);
            if ((r.status() > 0 && r.status() < 500) || System.nanoTime() > deadline) return r;
            sleep(backoff);
            backoff = Math.min(1000, backoff * 2);
        }
    }

    String token(String principal, String name) {
        ObjectNode b = JSON.createObjectNode().put("tenant", tenant).put("principal", principal).put("name", name);
        Reply r = retrying("POST", "/v1/dev/tokens", null, b, UUID.randomUUID().toString(), Duration.ofSeconds(30));
        if (!r.ok()) throw new IllegalStateException("dev token: " + r);
        return r.body().path("token").asText();
    }

    String createMeeting(String token, String title) {
        ObjectNode b = JSON.createObjectNode().put("title", title).put("waiting_room_enabled", false)
            .put("encryption_mode", "transport");
        Reply r = retrying("POST", "/v1/meetings", token, b, UUID.randomUUID().toString(), Duration.ofSeconds(30));
        if (!r.ok()) throw new IllegalStateException("create meeting: " + r);
        return r.body().path("meeting_id").asText();
    }

    String join(String token, String meetingId, String name) {
        ObjectNode b = JSON.createObjectNode().put("client_instance_id", UUID.randomUUID().toString()).put("display_name", name);
        b.putObject("capabilities").put("simulcast", false).putArray("video_codecs").add("VP8");
        Reply r = retrying("POST", "/v1/meetings/" + meetingId + "/participants", token, b, UUID.randomUUID().toString(),
            Duration.ofSeconds(30));
        if (!r.ok()) throw new IllegalStateException("join: " + r);
        if (!"admitted".equals(r.body().path("admission_state").asText())) throw new IllegalStateException("not admitted: " + r);
        return r.body().path("participant_id").asText();
    }

    Reply transports(String token, String meetingId, String pid, long expectedGeneration, String key) {
        ObjectNode b = JSON.createObjectNode().put("expected_transport_generation", expectedGeneration).put("device_key_id", "chaos");
        return retrying("POST", "/v1/meetings/" + meetingId + "/participants/" + pid + "/transports", token, b, key,
            Duration.ofSeconds(20));
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
