package dev.parley.recorder.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestCodec;
import dev.parley.recorder.storage.ObjectKeys;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST {controller}/internal/v1/recordings/{job_id}/state} with the internal bearer secret and
 * {@code {job_id, generation, pod, state, segments, missing_ranges, result, failure_reason, manifest_key}}.
 * The controller must ignore a report whose generation is lower than the job's current one. A few retries,
 * then the controller relies on the manifest (it can always read it).
 */
public final class HttpJobStateReporter implements JobStateReporter {
    private static final Logger LOG = LoggerFactory.getLogger(HttpJobStateReporter.class);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI base;
    private final String secret;
    private final ObjectKeys keys;
    private volatile CompletableFuture<?> last = CompletableFuture.completedFuture(null);
    private volatile Runnable onStopRequested = () -> { };
    private volatile Runnable onResubscribe = () -> { };

    /** {@code keys}: where the manifests are, so {@code manifest_key} names the object the controller can read. */
    public HttpJobStateReporter(URI base, String secret, ObjectKeys keys) {
        this.base = base;
        this.secret = secret;
        this.keys = keys;
    }

    /** Called when the controller's answer says a stop was requested (stop_recording, meeting end). */
    public void onStopRequested(Runnable r) {
        this.onStopRequested = r;
    }

    /** Called when the controller's answer says our SFU is draining (move to a new transport first). */
    public void onResubscribe(Runnable r) {
        this.onResubscribe = r;
    }

    @Override
    public void report(Manifest m) {
        ObjectNode body = ManifestCodec.JSON.createObjectNode();
        body.put("job_id", m.jobId);
        body.put("generation", m.generation);
        body.put("pod", m.pod);
        body.put("state", m.state.wire());
        body.put("segments", m.segments.size());
        body.set("missing_ranges", ManifestCodec.JSON.valueToTree(m.missingRanges));
        if (m.result != null) {
            body.set("result", ManifestCodec.JSON.valueToTree(m.result));
        }
        if (m.failureReason != null) {
            body.put("failure_reason", m.failureReason);
        }
        body.put("manifest_key", keys.manifest(m.jobId, m.generation));
        HttpRequest.Builder req = HttpRequest.newBuilder(
                        base.resolve("/internal/v1/recordings/" + m.jobId + "/state"))
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (secret != null) {
            req.header("Authorization", "Bearer " + secret);
        }
        HttpRequest request = req.build();
        // reports are sent in order: each waits for the previous one
        last = last.handle((r, e) -> null).thenCompose(x -> send(request, 0));
    }

    private CompletableFuture<Void> send(HttpRequest request, int attempt) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((r, e) -> {
            if (e == null && r.statusCode() / 100 == 2) {
                JsonNode answer = answer(r.body());
                if (answer.path("stop_requested").asBoolean(false)) {
                    onStopRequested.run();
                } else if (answer.path("resubscribe").asBoolean(false)) {
                    onResubscribe.run();
                }
                return CompletableFuture.<Void>completedFuture(null);
            }
            String why = e != null ? e.toString() : "HTTP " + r.statusCode();
            if (attempt >= 3 || (r != null && r.statusCode() / 100 == 4)) {
                LOG.warn("state report to controller failed ({}), giving up: the manifest stays authoritative", why);
                return CompletableFuture.<Void>completedFuture(null);
            }
            return CompletableFuture.runAsync(() -> { },
                    CompletableFuture.delayedExecutor(500L << attempt, TimeUnit.MILLISECONDS))
                    .thenCompose(x -> send(request, attempt + 1));
        }).thenCompose(f -> f);
    }

    private static JsonNode answer(String body) {
        try {
            return body == null || body.isBlank() ? MissingNode.getInstance() : ManifestCodec.JSON.readTree(body);
        } catch (java.io.IOException | RuntimeException e) {
            return MissingNode.getInstance();
        }
    }

    /** Waits (bounded) for queued reports, e.g. before the process exits. */
    public void flush(long timeoutMs) {
        try {
            last.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.debug("state reports not flushed: {}", e.toString());
        }
    }
}
