package dev.parley.bench.large;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The public REST API as the SDK calls it: HS256 bearer tokens, an Idempotency-Key per POST. */
final class Api {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final UUID tenant = UUID.randomUUID();
    private final Mac mac;

    Api(String base, String jwtSecret) throws Exception {
        this.base = base;
        mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(jwtSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    }

    synchronized String token(UUID principal, String name) {
        String header = B64.encodeToString("{\"alg\":\"HS256\"}".getBytes(StandardCharsets.US_ASCII));
        String claims = "{\"sub\":\"" + principal + "\",\"tid\":\"" + tenant + "\",\"name\":\"" + name + "\",\"exp\":"
                + (System.currentTimeMillis() / 1000 + 7200) + "}";
        String input = header + "." + B64.encodeToString(claims.getBytes(StandardCharsets.US_ASCII));
        return input + "." + B64.encodeToString(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
    }

    /** A transport-mode meeting without waiting room for up to {@code max} people, top-N audio {@code topN}. */
    String createMeeting(int max, int topN) throws Exception {
        String body = "{\"title\":\"large\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\","
                + "\"max_participants\":" + max + ",\"audio_top_n\":" + topN + "}";
        return post("/v1/meetings", token(UUID.randomUUID(), "organizer"), body).get("meeting_id").asText();
    }

    JsonNode post(String path, String token, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString()).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) throw new IllegalStateException("POST " + path + " -> " + r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    /** The People panel's first page ({@code GET …/participants?limit=50}), as the SDK reads it at join. */
    List<String> firstRosterPage(String meeting, String token) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/meetings/" + meeting
                        + "/participants?limit=50")).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("GET participants -> " + r.statusCode() + " " + r.body());
        List<String> ids = new ArrayList<>();
        for (JsonNode p : JSON.readTree(r.body()).path("participants")) ids.add(p.path("participant_id").asText());
        return ids;
    }
}
