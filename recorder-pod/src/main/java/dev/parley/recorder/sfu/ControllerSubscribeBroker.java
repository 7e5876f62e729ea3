package dev.parley.recorder.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code POST {controller}/internal/v1/recordings/{job_id}/subscribe} with the internal bearer secret and
 * {@code {generation, transport_generation, sdp_offer}}; the answer is
 * {@code {sfu_pod, participant_id, sdp_answer, slot_assignments:[{mid, participant_id, track_id, kind}]}}.
 * A 4xx other than 409 {@code no_media_server}/{@code not_owner} is final ({@link RefusedException}).
 */
public final class ControllerSubscribeBroker implements SubscribeBroker {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final URI base;
    private final String secret;
    private final String jobId;
    private final long generation;

    public ControllerSubscribeBroker(URI base, String secret, String jobId, long generation) {
        this.base = base;
        this.secret = secret;
        this.jobId = jobId;
        this.generation = generation;
    }

    @Override
    public Subscription subscribe(long transportGeneration, String sdpOffer) throws IOException {
        ObjectNode body = JSON.createObjectNode().put("generation", generation)
                .put("transport_generation", transportGeneration).put("sdp_offer", sdpOffer);
        HttpRequest.Builder req = HttpRequest.newBuilder(base.resolve("/internal/v1/recordings/" + jobId + "/subscribe"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (secret != null) {
            req.header("Authorization", "Bearer " + secret);
        }
        HttpResponse<String> r;
        try {
            r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        JsonNode n = r.body() == null || r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
        if (r.statusCode() != 200) {
            String code = n.path("code").asText("http_" + r.statusCode());
            String detail = n.path("detail").asText("");
            boolean retryable = r.statusCode() / 100 != 4 || "no_media_server".equals(code) || "not_owner".equals(code);
            if (retryable) {
                throw new IOException("controller answered " + r.statusCode() + " " + code + ": " + detail);
            }
            throw new RefusedException(code, detail);
        }
        return parse(n);
    }

    static Subscription parse(JsonNode n) throws IOException {
        if (!n.hasNonNull("sdp_answer")) {
            throw new IOException("controller answer without sdp_answer");
        }
        List<Assignment> slots = new ArrayList<>();
        for (JsonNode a : n.path("slot_assignments")) {
            slots.add(new Assignment(a.path("mid").asText(), a.path("participant_id").asText(),
                    a.path("track_id").asText(), a.path("kind").asText()));
        }
        return new Subscription(n.path("sfu_pod").asText(null), n.path("participant_id").asText(null),
                n.get("sdp_answer").asText(), List.copyOf(slots));
    }
}
