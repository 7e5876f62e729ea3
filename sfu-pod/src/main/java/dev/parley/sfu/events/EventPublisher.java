package dev.parley.sfu.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.platform.internal.SfuEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Posts events to the owner controller's events_url: best effort, a few retries, never blocks the media path. */
public final class EventPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(EventPublisher.class);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json;
    private final InternalAuth auth;
    private final String pod;

    public EventPublisher(ObjectMapper json, InternalAuth auth, String pod) {
        this.json = json;
        this.auth = auth;
        this.pod = pod;
    }

    public void publish(String url, String type, String meetingId, String participantId, long generation, JsonNode data) {
        if (url == null || url.isBlank()) return;
        try {
            byte[] body = json.writeValueAsBytes(new SfuEvent(type, meetingId, participantId, generation, pod, data));
            HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3))
                    .header("Content-Type", "application/json").header(InternalAuth.HEADER, auth.headerValue())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            send(req, 0);
        } catch (Exception e) {
            LOG.debug("event {} not sent: {}", type, e.toString());
        }
    }

    private void send(HttpRequest req, int attempt) {
        http.sendAsync(req, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
            boolean ok = e == null && r.statusCode() / 100 == 2;
            if (!ok && attempt < 2) {
                CompletableFuture.delayedExecutor(200L << attempt, TimeUnit.MILLISECONDS).execute(() -> send(req, attempt + 1));
            }
        });
    }
}
