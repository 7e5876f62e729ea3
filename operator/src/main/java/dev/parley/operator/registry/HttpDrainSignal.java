package dev.parley.operator.registry;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code POST {internal_url}/internal/v1/drain} with the internal bearer secret (docs/internal-api.md). */
public final class HttpDrainSignal implements DrainSignal {
    private static final Logger LOG = LoggerFactory.getLogger(HttpDrainSignal.class);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String secret;

    public HttpDrainSignal(String secret) {
        this.secret = secret;
    }

    @Override
    public boolean signal(String pod, String internalUrl) {
        if (internalUrl == null || internalUrl.isBlank()) {
            return false;
        }
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(internalUrl.replaceAll("/+$", "") + "/internal/v1/drain"))
                    .timeout(Duration.ofSeconds(3))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{}"));
            if (secret != null && !secret.isEmpty()) {
                b.header("Authorization", "Bearer " + secret);
            }
            HttpResponse<Void> r = http.send(b.build(), HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() / 100 != 2) {
                LOG.warn("drain signal to {} answered {}", pod, r.statusCode());
                return false;
            }
            return true;
        } catch (java.io.IOException | IllegalArgumentException e) {
            LOG.warn("drain signal to {} failed: {}", pod, e.getMessage());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
