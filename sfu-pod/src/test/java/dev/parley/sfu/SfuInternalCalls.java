package dev.parley.sfu;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.function.IntSupplier;

/** The browser tests' calls to a real SFU's internal API (bearer secret, JSON), asserting the expected status. */
final class SfuInternalCalls {
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private final IntSupplier port;
    private final String secret;

    /** @param port the SFU's internal port, read per call (the server may be restarted between tests) */
    SfuInternalCalls(IntSupplier port, String secret) {
        this.port = port;
        this.secret = secret;
    }

    JsonNode call(String method, String path, JsonNode body, int expect) {
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.getAsInt() + path))
                    .header("Authorization", "Bearer " + secret).header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build();
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(expect);
            return r.body().isEmpty() ? json.nullNode() : json.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
