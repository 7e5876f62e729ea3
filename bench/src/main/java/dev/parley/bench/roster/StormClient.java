package dev.parley.bench.roster;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The participants' side over the public API, as the SDK does it: {@code POST participants} (join), {@code POST
 * transports} (a connect ticket), then the signaling WebSocket with {@code join {connect_ticket}} and a ping every
 * 10 s. Counts what the sockets of one {@link Group} receive: bytes (UTF-8), messages and messages per type.
 */
final class StormClient {
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    /** What a set of sockets received. */
    static final class Group {
        final LongAdder bytes = new LongAdder();
        final LongAdder messages = new LongAdder();
        final Map<String, LongAdder> byType = new ConcurrentHashMap<>();

        void reset() {
            bytes.reset();
            messages.reset();
            byType.clear();
        }

        void count(String text) {
            bytes.add(utf8Length(text));
            messages.increment();
            byType.computeIfAbsent(typeOf(text), k -> new LongAdder()).increment();
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final UUID tenant = UUID.randomUUID();
    private final Mac mac;

    StormClient(String base, String jwtSecret) throws Exception {
        this.base = base;
        mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(jwtSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    }

    synchronized String token(UUID principal) {
        String header = B64.encodeToString("{\"alg\":\"HS256\"}".getBytes(StandardCharsets.US_ASCII));
        String claims = "{\"sub\":\"" + principal + "\",\"tid\":\"" + tenant + "\",\"name\":\"p\",\"exp\":"
                + (System.currentTimeMillis() / 1000 + 7200) + "}";
        String input = header + "." + B64.encodeToString(claims.getBytes(StandardCharsets.US_ASCII));
        return input + "." + B64.encodeToString(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
    }

    /** A meeting without a waiting room for up to {@code max} participants; returns its id. */
    String createMeeting(int max) throws Exception {
        String body = "{\"title\":\"storm\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\","
                + "\"max_participants\":" + max + "}";
        return field(post("/v1/meetings", token(UUID.randomUUID()), body), "meeting_id");
    }

    /** A participant's joined socket and id. */
    record Joined(WebSocket ws, String participantId) {
    }

    /** One participant joins (a new principal), gets a ticket and opens its joined socket. */
    Joined join(String meetingId, int index, Group group) throws Exception {
        String token = token(UUID.randomUUID());
        String joined = post("/v1/meetings/" + meetingId + "/participants", token,
                "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"Participant " + index + "\"}");
        String pid = field(joined, "participant_id");
        String transport = post("/v1/meetings/" + meetingId + "/participants/" + pid + "/transports", token,
                "{\"expected_transport_generation\":0,\"device_key_id\":\"dk\"}");
        String ticket = field(transport, "connect_ticket");
        String endpoint = field(transport, "signaling_endpoint");
        CompletableFuture<Void> isJoined = new CompletableFuture<>();
        WebSocket ws = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
                .buildAsync(URI.create(endpoint), new Listener(group, isJoined)).get(20, TimeUnit.SECONDS);
        ws.sendText("{\"type\":\"join\",\"connect_ticket\":\"" + ticket + "\"}", true);
        isJoined.get(20, TimeUnit.SECONDS);
        return new Joined(ws, pid);
    }

    private String post(String path, String token, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString()).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("POST " + path + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** A top-level string field of a small JSON answer (the bench reads only ids and tickets). */
    static String field(String json, String name) {
        String key = "\"" + name + "\":\"";
        int i = json.indexOf(key);
        if (i < 0) {
            throw new IllegalStateException("no " + name + " in " + json);
        }
        int from = i + key.length();
        return json.substring(from, json.indexOf('"', from));
    }

    /** {@code type}, or {@code event:<event.type>} for events ({@code event~} for volatile ones). */
    static String typeOf(String text) {
        String t = after(text, 0);
        if (!"event".equals(t)) {
            return t;
        }
        int ev = text.indexOf("\"event\":{");
        String inner = ev < 0 ? "?" : after(text, ev);
        return (text.contains("\"volatile\":true") ? "event~" : "event:") + inner;
    }

    private static String after(String text, int from) {
        int i = text.indexOf("\"type\":\"", from);
        if (i < 0) {
            return "?";
        }
        int s = i + 8;
        return text.substring(s, text.indexOf('"', s));
    }

    static int utf8Length(CharSequence s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }

    private static final class Listener implements WebSocket.Listener {
        private final Group group;
        private final CompletableFuture<Void> joined;
        private final StringBuilder part = new StringBuilder();

        Listener(Group group, CompletableFuture<Void> joined) {
            this.group = group;
            this.joined = joined;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            part.append(data);
            if (last) {
                String text = part.toString();
                part.setLength(0);
                group.count(text);
                if (!joined.isDone()) {
                    if (text.startsWith("{\"type\":\"joined\"") || text.contains("\"type\":\"joined\"")) {
                        joined.complete(null);
                    } else if (text.contains("\"type\":\"error\"")) {
                        joined.completeExceptionally(new IllegalStateException(text));
                    }
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            joined.completeExceptionally(error);
        }
    }
}
