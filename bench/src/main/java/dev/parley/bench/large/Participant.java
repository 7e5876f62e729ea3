package dev.parley.bench.large;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.bench.media.ClientTransport;

import java.net.URI;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * One participant, joined as the SDK joins: {@code POST participants}, the People panel's first page ({@code GET
 * participants}), {@code POST transports} (naming its MediaRegion), the signaling socket ({@code join} with that
 * page as {@code roster_page}), a publish offer (camera or microphone publishers), a subscribe offer (N audio slots +
 * the SDK's video slots) and then its viewport: a {@code subscribe} naming the videos on its page at the tile's
 * size, every other known camera at 0 × 0 (not watched). Everything its socket receives is counted in {@link #counter}.
 */
final class Participant {
    enum Role { CAMERA, MICROPHONE, RECEIVER }

    /** What a set of sockets received: bytes (UTF-8), messages, messages per type. */
    static final class Counter {
        final LongAdder bytes = new LongAdder();
        final LongAdder messages = new LongAdder();
        final Map<String, LongAdder> byType = new ConcurrentHashMap<>();
        final Map<String, LongAdder> bytesByType = new ConcurrentHashMap<>();

        void reset() {
            bytes.reset();
            messages.reset();
            byType.clear();
            bytesByType.clear();
        }
    }

    final int index;
    final Role role;
    final String region;
    volatile Counter counter;
    String pid;
    WebSocket ws;
    MediaPublisher publisher;
    final SlotReceiver receiver;
    /** Publisher ids whose camera is on this participant's page (watched), and the other cameras (not watched). */
    Set<String> page = Set.of();
    /**
     * mid → participant id of the slot's track, as the server last said: whole maps (answer, subscribed) and the
     * {@code slot_delta}s this client opted in to, applied on the version chain (docs/api.md "Slot maps").
     */
    final Map<String, String> slotOwner = new ConcurrentHashMap<>();
    /** Version of {@link #slotOwner} (-1: none yet); a delta applies only on the version it names as its base. */
    private long slotVersion = -1;
    private long slotMapAskedNanos;
    volatile long subscribedAt;
    private final Map<String, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private CompletableFuture<?> chain = CompletableFuture.completedFuture(null);

    Participant(int index, Role role, String region, Counter counter, int audioSlots, int videoSlots) {
        this.index = index;
        this.role = role;
        this.region = region;
        this.counter = counter;
        this.receiver = new SlotReceiver(audioSlots, videoSlots);
    }

    /** Join, socket, offers; then {@link #watch} names the page. Blocks until the subscribe transport is up. */
    void join(Api api, String meeting, int pace) throws Exception {
        String token = api.token(UUID.randomUUID(), "p" + index);
        JsonNode joined = api.post("/v1/meetings/" + meeting + "/participants", token,
                "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"Participant " + index + "\"}");
        pid = joined.get("participant_id").asText();
        List<String> firstPage = api.firstRosterPage(meeting, token);
        JsonNode t = api.post("/v1/meetings/" + meeting + "/participants/" + pid + "/transports", token,
                "{\"expected_transport_generation\":0,\"device_key_id\":\"dk-" + index + "\",\"media_region\":\"" + region + "\"}");
        CompletableFuture<JsonNode> isJoined = expect("joined");
        ws = api.http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(20))
                .buildAsync(URI.create(t.get("signaling_endpoint").asText()), new Listener()).get(30, TimeUnit.SECONDS);
        ObjectNode j = Api.JSON.createObjectNode().put("type", "join").put("connect_ticket", t.get("connect_ticket").asText());
        ArrayNode ids = j.putObject("roster_page").putArray("participant_ids");
        firstPage.forEach(ids::add);
        send(j);
        isJoined.get(60, TimeUnit.SECONDS);
        if (role != Role.RECEIVER) {
            publisher = new MediaPublisher(role == Role.CAMERA, pace);
            ClientTransport pt = new ClientTransport(publisher);
            String sdp = offer("publish", publisher.offer(pt), role == Role.CAMERA ? "camera" : "microphone");
            pt.connect(sdp);
            publisher.transport = pt;
        }
        ClientTransport st = new ClientTransport(receiver);
        String sdp = offer("subscribe", receiver.offer(st), null);   // offer() opts in to slot_delta
        receiver.answer(sdp);
        st.connect(sdp);
        receiver.transport = st;
    }

    /** The viewport: page cameras at the tile size (the low layer), every other camera not watched. */
    void watch(List<String> cameras, int width, int height, int fps) throws Exception {
        ObjectNode m = Api.JSON.createObjectNode().put("type", "subscribe");
        ArrayNode tracks = m.putArray("tracks");
        for (String c : cameras) {
            if (c.equals(pid)) continue;
            boolean on = page.contains(c);
            tracks.addObject().put("track_id", c + ":1").put("max_width", on ? width : 0).put("max_height", on ? height : 0)
                    .put("max_fps", on ? fps : 0);
        }
        CompletableFuture<JsonNode> done = expect("subscribed");
        send(m);
        done.get(60, TimeUnit.SECONDS);
        subscribedAt = System.nanoTime();
    }

    private String offer(String transport, String sdp, String source) throws Exception {
        ObjectNode m = Api.JSON.createObjectNode().put("type", "offer").put("transport", transport).put("sdp", sdp);
        if (source != null) m.putArray("sources").addObject().put("mid", publisher.video ? "1" : "0").put("source", source);
        if (transport.equals("subscribe")) m.put("slot_deltas", true);
        for (int attempt = 0; ; attempt++) {
            CompletableFuture<JsonNode> answer = expect("answer:" + transport);
            send(m);
            try {
                return answer.get(60, TimeUnit.SECONDS).get("sdp").asText();
            } catch (java.util.concurrent.ExecutionException e) {
                if (attempt < 5 && String.valueOf(e.getCause().getMessage()).contains("lease_in_doubt")) {
                    Thread.sleep(500);
                    continue;
                }
                throw e;
            }
        }
    }

    private CompletableFuture<JsonNode> expect(String key) {
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(key, f);
        return f;
    }

    void send(JsonNode msg) throws Exception {
        sendText(msg.toString()).get(30, TimeUnit.SECONDS);
    }

    /**
     * Sends in order without blocking the caller on the previous send: the JDK's WebSocket refuses a send while one is
     * pending, and a keepalive thread that waited on each socket in turn fell behind under load (sockets then went 30 s
     * without a ping and were closed as ghosts).
     */
    private synchronized CompletableFuture<?> sendText(String text) {
        WebSocket w = ws;
        chain = chain.handle((v, e) -> null).thenCompose(v -> w.sendText(text, true));
        return chain;
    }

    void ping() {
        WebSocket w = ws;
        if (w == null || w.isOutputClosed()) return;
        sendText("{\"type\":\"ping\",\"ts\":" + System.currentTimeMillis() + "}");
    }

    void consent() {
        if (receiver.transport != null) receiver.transport.check();
        if (publisher != null && publisher.transport != null) publisher.transport.check();
    }

    void close() {
        if (ws != null) ws.abort();
        if (receiver.transport != null) receiver.transport.close();
        if (publisher != null && publisher.transport != null) publisher.transport.close();
    }

    private void onMessage(String text) {
        Counter c = counter;
        int len = utf8Length(text);
        c.bytes.add(len);
        c.messages.increment();
        String type = typeOf(text);
        c.byType.computeIfAbsent(type, k -> new LongAdder()).increment();
        c.bytesByType.computeIfAbsent(type, k -> new LongAdder()).add(len);
        switch (type) {
            case "joined" -> complete("joined", text);
            case "answer", "subscribed", "error", "event~slot_assignments", "event~slot_delta", "event~publisher_layers" -> handle(type, text);
            default -> { }
        }
    }

    private void handle(String type, String text) {
        JsonNode n;
        try {
            n = Api.JSON.readTree(text);
        } catch (Exception e) {
            return;
        }
        switch (type) {
            case "answer" -> {
                if (n.path("transport").asText().equals("subscribe")) slots(n.path("slot_assignments"), n.get("slot_version"));
                complete("answer:" + n.path("transport").asText(), n);
            }
            case "subscribed" -> {
                slots(n.path("slot_assignments"), n.get("slot_version"));
                complete("subscribed", n);
            }
            case "event~slot_assignments" -> slots(n.path("event").path("slot_assignments"), null);
            case "event~slot_delta" -> delta(n.path("event"));
            case "event~publisher_layers" -> {
                MediaPublisher p = publisher;
                JsonNode a = n.path("event").path("active_layers");
                if (p != null && a.isArray()) for (int i = 0; i < Math.min(3, a.size()); i++) p.active[i] = a.get(i).asBoolean(true);
            }
            default -> {
                String code = n.path("code").asText(n.path("error").path("code").asText("?"));
                if (Errors.count(code) <= 3) System.out.println("participant " + index + " got error: " + text);
                IllegalStateException e = new IllegalStateException(code + ": " + text);
                String tr = n.path("transport").asText("");
                if (!tr.isEmpty()) fail("answer:" + tr, e);
                else pending.forEach((k, f) -> f.completeExceptionally(e));
            }
        }
    }

    /** A whole map; one older than the map held (a delta overtook it) is not applied. */
    private synchronized void slots(JsonNode list, JsonNode version) {
        if (!list.isArray()) return;
        if (version != null && version.isNumber()) {
            if (version.asLong() < slotVersion) return;
            slotVersion = version.asLong();
        }
        slotOwner.clear();
        for (JsonNode s : list) slotOwner.put(s.path("mid").asText(), s.path("participant_id").asText());
    }

    /**
     * A {@code slot_delta}: applied when made from the map held; already held → ignored; a gap (a lost delta) asks
     * for the whole map ({@code subscribe} with no tracks → {@code subscribed}), at most once a second, and is counted.
     */
    private synchronized void delta(JsonNode ev) {
        long base = ev.path("base").asLong(-2), version = ev.path("version").asLong(-2);
        if (slotVersion >= 0 && version <= slotVersion) return;
        if (base != slotVersion || slotVersion < 0) {
            long gaps = Errors.count("slot_map_gap");
            if (gaps <= 3) System.out.println("participant " + index + ": slot_delta " + base + "→" + version + " on map " + slotVersion + ": whole map asked (gap " + gaps + ")");
            long now = System.nanoTime();
            if (now - slotMapAskedNanos > 1_000_000_000L) {
                slotMapAskedNanos = now;
                ObjectNode m = Api.JSON.createObjectNode().put("type", "subscribe");
                m.putArray("tracks");
                sendText(m.toString());
            }
            return;
        }
        for (JsonNode c : ev.path("changes")) {
            String mid = c.path("mid").asText(), owner = c.path("participant_id").asText("");
            if (owner.isEmpty()) slotOwner.remove(mid);
            else slotOwner.put(mid, owner);
        }
        slotVersion = version;
    }

    private void complete(String key, Object value) {
        CompletableFuture<JsonNode> f = pending.remove(key);
        if (f != null) f.complete(value instanceof JsonNode j ? j : null);
    }

    private void fail(String key, Exception e) {
        CompletableFuture<JsonNode> f = pending.remove(key);
        if (f != null) f.completeExceptionally(e);
    }

    /** {@code type}, or {@code event:<event.type>} for events ({@code event~} for volatile ones). */
    static String typeOf(String text) {
        String t = after(text, 0);
        if (!"event".equals(t)) return t;
        int ev = text.indexOf("\"event\":{");
        String inner = ev < 0 ? "?" : after(text, ev);
        return (text.contains("\"volatile\":true") ? "event~" : "event:") + inner;
    }

    private static String after(String text, int from) {
        int i = text.indexOf("\"type\":\"", from);
        if (i < 0) return "?";
        int s = i + 8;
        return text.substring(s, text.indexOf('"', s));
    }

    static int utf8Length(CharSequence s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            n += ch < 0x80 ? 1 : ch < 0x800 ? 2 : Character.isSurrogate(ch) ? 2 : 3;
        }
        return n;
    }

    /** Error codes seen, so the first few of each kind are printed and the rest only counted. */
    static final class Errors {
        static final Map<String, LongAdder> SEEN = new ConcurrentHashMap<>();

        static long count(String code) {
            LongAdder a = SEEN.computeIfAbsent(code, k -> new LongAdder());
            a.increment();
            return a.sum();
        }
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder part = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            part.append(data);
            if (last) {
                String text = part.toString();
                part.setLength(0);
                onMessage(text);
            }
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket w, int code, String reason) {
            if (Errors.count("closed:" + code) <= 3) System.out.println("participant " + index + " socket closed " + code + " " + reason);
            return null;
        }

        @Override
        public void onError(WebSocket w, Throwable error) {
            pending.forEach((k, f) -> f.completeExceptionally(error));
        }
    }
}
