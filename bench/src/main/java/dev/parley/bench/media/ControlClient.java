package dev.parley.bench.media;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.platform.ticket.TicketSigner;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collection;

/** Plays the controller toward the SFU's internal API: tickets, transports, grant renewals. */
public final class ControlClient {
    static final long EPOCH = 1;
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String secret;
    private final TicketSigner signer;
    private final String pod;
    private long version = 1;

    public ControlClient(int port, String secret, TicketSigner signer, String pod) {
        this.base = "http://127.0.0.1:" + port;
        this.secret = secret;
        this.signer = signer;
        this.pod = pod;
    }

    public boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public String createTransport(String meeting, String pid, String kind, String offer) throws IOException, InterruptedException {
        ObjectNode b = json.createObjectNode();
        b.put("meeting_id", meeting).put("participant_id", pid).put("transport_generation", 1).put("controller_epoch", EPOCH)
                .put("kind", kind).put("connect_ticket", signer.issue(meeting, pid, 1, pod, "bench", Duration.ofSeconds(30)).token())
                .put("sdp_offer", offer);
        b.set("grant", grant(pid));
        JsonNode r = send("POST", "/internal/v1/transports", b);
        return r.get("sdp_answer").asText();
    }

    public void renew(String meeting, Collection<String> pids) throws IOException, InterruptedException {
        ObjectNode b = json.createObjectNode().put("meeting_id", meeting).put("controller_epoch", EPOCH);
        ArrayNode a = b.putArray("grants");
        for (String p : pids) a.add(grant(p));
        send("PUT", "/internal/v1/grants", b);
    }

    public String metrics() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private synchronized ObjectNode grant(String pid) {
        ObjectNode g = json.createObjectNode();
        g.put("participant_id", pid).put("version", version++).put("controller_epoch", EPOCH).put("subscribe", true).put("ttl_ms", 3000);
        g.putObject("publish").put("audio", true).put("video", true).put("screen", false);
        return g;
    }

    private JsonNode send(String method, String path, JsonNode body) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + secret)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException(method + " " + path + " → " + r.statusCode() + " " + r.body());
        return json.readTree(r.body());
    }
}
