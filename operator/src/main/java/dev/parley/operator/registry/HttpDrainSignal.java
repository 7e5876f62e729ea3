package dev.parley.operator.registry;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code POST {internal_url}/internal/v1/drain} (or TURN's {@code /drain}) with the internal bearer secret (docs/internal-api.md). */
public final class HttpDrainSignal implements DrainSignal {
    private static final Logger LOG = LoggerFactory.getLogger(HttpDrainSignal.class);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String secret;

    public HttpDrainSignal(String secret) {
        this.secret = secret;
    }

    /** SFU pods serve {@code /internal/v1/drain}; TURN pods serve {@code /drain} on their internal port. */
    private static final java.util.List<String> PATHS = java.util.List.of("/internal/v1/drain", "/drain");

    @Override
    public boolean signal(String pod, String internalUrl) {
        if (internalUrl == null || internalUrl.isBlank()) {
            return false;
        }
        String base = internalUrl.replaceAll("/+$", "");
        for (String path : PATHS) {
            try {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                        .timeout(Duration.ofSeconds(3))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"));
                if (secret != null && !secret.isEmpty()) {
                    b.header("Authorization", "Bearer " + secret);
                }
                HttpResponse<Void> r = http.send(b.build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() / 100 == 2) {
                    return true;
                }
                if (r.statusCode() != 404) {
                    LOG.warn("drain signal to {} ({}) answered {}", pod, path, r.statusCode());
                    return false;
                }
            } catch (java.io.IOException | IllegalArgumentException e) {
                LOG.warn("drain signal to {} failed: {}", pod, e.getMessage());
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        LOG.warn("drain signal to {}: no drain endpoint (404)", pod);
        return false;
    }
}
