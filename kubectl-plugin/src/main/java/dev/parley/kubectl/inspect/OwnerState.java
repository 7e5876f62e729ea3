package dev.parley.kubectl.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Asks the meeting's owner controller for its view of the meeting over the internal API. */
public final class OwnerState {
    /** Either the state object, or why there is none. */
    public record Answer(JsonNode state, String error) {
    }

    private OwnerState() {
    }

    public static Answer fetch(String internalUrl, String meetingId, String secret) throws InterruptedException {
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(URI.create(internalUrl.replaceAll("/+$", "") + "/internal/v1/meetings/" + meetingId
                    + "/state")).timeout(Duration.ofSeconds(5)).GET();
        } catch (IllegalArgumentException e) {
            return new Answer(null, "owner's internal URL is not a URL: " + internalUrl);
        }
        if (secret != null && !secret.isBlank()) {
            b.header("Authorization", "Bearer " + secret);
        }
        HttpResponse<String> resp;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            resp = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return new Answer(null, "owner's internal API not reachable: " + e.getMessage());
        }
        if (resp.statusCode() != 200) {
            return new Answer(null, "owner's meeting state: HTTP " + resp.statusCode());
        }
        try {
            JsonNode n = new ObjectMapper().readTree(resp.body());
            return n != null && n.isObject() ? new Answer(n, null) : new Answer(null, "owner's meeting state is not a JSON object");
        } catch (IOException e) {
            return new Answer(null, "owner's meeting state is not JSON");
        }
    }
}
