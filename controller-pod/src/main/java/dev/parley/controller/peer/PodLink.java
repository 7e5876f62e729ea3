package dev.parley.controller.peer;

import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.internal.InternalAuth;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Controller → controller calls on the internal API ({@code PARLEY_INTERNAL_SECRET} as bearer): the relay's
 * control-event fan-out and a non-owner's signaling notices to a meeting's owner.
 */
@Singleton
public class PodLink {
    private static final Logger LOG = LoggerFactory.getLogger(PodLink.class);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final InternalAuth auth;

    public PodLink(ParleyConfig cfg) {
        this.auth = cfg.internalSecret() == null ? null : new InternalAuth(cfg.internalSecret());
    }

    /** An answer: HTTP status (-1: no answer) and the JSON body when there was one. */
    public record Reply(int status, com.fasterxml.jackson.databind.JsonNode body) {
    }

    /** POSTs a JSON body to {@code base + path} and reads the JSON answer. */
    public Reply call(String base, String path, String json, Duration timeout) {
        if (auth == null) {
            return new Reply(-1, null);
        }
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .header(InternalAuth.HEADER, auth.headerValue())
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
            com.fasterxml.jackson.databind.JsonNode body = null;
            try {
                body = r.body() == null || r.body().isEmpty() ? null : dev.parley.controller.http.JsonBody.JSON.readTree(r.body());
            } catch (Exception notJson) {
                LOG.debug("internal call {}{}: answer is not JSON", base, path);
            }
            return new Reply(r.statusCode(), body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(-1, null);
        } catch (Exception e) {
            LOG.debug("internal call {}{} failed: {}", base, path, e.toString());
            return new Reply(-1, null);
        }
    }

    /** POSTs a JSON body to {@code base + path}; the HTTP status, or -1 when the pod did not answer. */
    public int post(String base, String path, String json, Duration timeout) {
        if (auth == null) {
            return -1; // without the shared secret no other pod would accept us
        }
        try {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .header(InternalAuth.HEADER, auth.headerValue())
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (Exception e) {
            LOG.debug("internal call {}{} failed: {}", base, path, e.toString());
            return -1;
        }
    }
}
