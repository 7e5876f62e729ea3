package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The SFU internal API's relay endpoints (docs/internal-api.md "Relays between SFUs"), with the shared bearer
 * secret. Blocking: the relay driver calls them from its own thread. Bodies carry the relay's SRTP key, so neither
 * a body nor an SFU's answer to it is ever logged here; errors are reported by status and the SFU's {@code code}.
 */
public final class RelayCalls {
    /** An SFU's answer: 2xx with its body, or the status (0 = unreachable) and its error code. */
    public record Answer(int status, JsonNode body, String code) {
        public boolean ok() {
            return status / 100 == 2;
        }
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();
    private final String auth;

    public RelayCalls(String internalSecret) {
        this.auth = internalSecret == null ? null : "Bearer " + internalSecret;
    }

    public Answer accept(String base, ObjectNode body) {
        return call(base, "POST", "/internal/v1/relays/in", body);
    }

    public Answer send(String base, ObjectNode body) {
        return call(base, "POST", "/internal/v1/relays/out", body);
    }

    public Answer delete(String base, String relayId, long epoch) {
        return call(base, "DELETE", "/internal/v1/relays/" + relayId + "?controller_epoch=" + epoch, null);
    }

    /** The meeting's tracks published on that SFU (not relayed copies), fenced on our epoch. */
    public Answer tracks(String base, String meetingId, long epoch) {
        return call(base, "GET", "/internal/v1/meetings/" + meetingId + "/tracks?controller_epoch=" + epoch, null);
    }

    private Answer call(String base, String method, String path, ObjectNode body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT)
                    .header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
            if (auth != null) b.header("Authorization", auth);
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            JsonNode answer = r.body().length == 0 ? null : json.readTree(r.body());
            String code = r.statusCode() / 100 == 2 || answer == null ? null : answer.path("code").asText(null);
            return new Answer(r.statusCode(), answer, code);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, null, "interrupted");
        } catch (Exception e) {
            return new Answer(0, null, e.getClass().getSimpleName());
        }
    }
}
