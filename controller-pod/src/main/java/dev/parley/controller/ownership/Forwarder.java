package dev.parley.controller.ownership;

import dev.parley.controller.http.ApiException;
import dev.parley.platform.etcd.ControllerEntry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import jakarta.inject.Singleton;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Sends a request that reached a non-owner to the owner controller, unchanged (same bearer token, same
 * Idempotency-Key, same body). One hop only: a forwarded request that again misses the owner is a 503.
 */
@Singleton
public class Forwarder {
    public static final String HEADER = "X-Parley-Forwarded";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    public HttpResponse<String> forward(HttpRequest<?> req, String body, ControllerEntry owner, String selfPod) {
        if (req.getHeaders().contains(HEADER)) {
            throw ApiException.unavailable("owner_unavailable", "meeting ownership is moving; retry");
        }
        String path = req.getUri().getRawPath() + (req.getUri().getRawQuery() == null ? "" : "?" + req.getUri().getRawQuery());
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(URI.create(owner.internalUrl() + path))
                .timeout(Duration.ofSeconds(10))
                .header(HEADER, selfPod);
        for (String h : new String[]{"Authorization", "Idempotency-Key", "Content-Type"}) {
            String v = req.getHeaders().get(h);
            if (v != null) {
                b.header(h, v);
            }
        }
        b.method(req.getMethodName(), body == null ? java.net.http.HttpRequest.BodyPublishers.noBody()
                : java.net.http.HttpRequest.BodyPublishers.ofString(body));
        try {
            java.net.http.HttpResponse<String> r = http.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            MutableHttpResponse<String> out = HttpResponse.<String>status(HttpStatus.valueOf(r.statusCode())).body(r.body());
            r.headers().firstValue("Content-Type").ifPresent(ct -> out.contentType(MediaType.of(ct)));
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("owner_unreachable", "the owning controller did not answer; retry");
        } catch (Exception e) {
            throw ApiException.unavailable("owner_unreachable", "the owning controller did not answer; retry");
        }
    }
}
