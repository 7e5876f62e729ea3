package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.RtpPacket;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One participant of the load client, the way the web SDK behaves but in Java: REST join and transports through the
 * front door, the signaling WebSocket at the pod named by {@code signaling_endpoint} (join, resume with its cursor,
 * offers), and two peer connections ({@link MediaLink}) publishing Opus-sized audio every 20 ms and one VP8 stream at
 * 15 fps and counting what it receives per publisher. Every packet it sends ends with a tag (its index) and its send
 * time, so a receiver knows whose media it got.
 *
 * <p>Its own supervisor thread repairs what faults break: a closed socket is reopened with a fresh ticket of the same
 * attempt and {@code resume}; a media link silent for 3 s (the SFU is gone), {@code media_server_lost} or
 * {@code new_generation_required} moves it to a new transport generation. A participant told it was removed keeps
 * its links running and sending (a misbehaving client): the SFU must not forward anything for it.
 */
final class LoadParticipant implements AutoCloseable {
    static final int TAG_MAGIC = 0xC4A0;
    private static final HttpClient WS_HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long SILENCE_NANOS = TimeUnit.SECONDS.toNanos(3);

    final String name;
    final int tag;
    final String principal = UUID.randomUUID().toString();
    private final Api api;
    private final ChaosPlatform platform;
    private final int slots;
    String token;
    String meetingId;
    String pid;
    volatile long generation;
    private volatile String attemptKey;
    private volatile long attemptExpected;
    volatile String cursor;
    volatile String sfuPod;
    private volatile WebSocket ws;
    private volatile boolean wsOpen;
    private volatile MediaLink pub, sub;
    volatile boolean removed;
    private volatile boolean closed;
    private volatile boolean needNewGeneration;
    private final Map<String, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
    /** The last offer sent per transport kind, sent again when the owner answers {@code lease_in_doubt}. */
    private final Map<String, String> offers = new ConcurrentHashMap<>();
    /** Packets received per publisher tag. */
    final Map<Integer, AtomicLong> receivedFrom = new ConcurrentHashMap<>();
    /** Per publisher tag: the earliest send time stamped in the packets received since the Observer last took it. */
    private final Map<Integer, AtomicLong> earliestSent = new ConcurrentHashMap<>();
    final AtomicLong sent = new AtomicLong();
    final AtomicInteger socketReopens = new AtomicInteger();
    final AtomicInteger generationMoves = new AtomicInteger();
    volatile String lastError = "";

    // publisher state (media clock thread)
    private final int audioSsrc = RANDOM.nextInt() | 1, videoSsrc = RANDOM.nextInt() | 1;
    private int audioSeq, videoSeq, pictureId;
    private volatile boolean keyframeWanted = true;
    private final byte[] buf = new byte[1600];

    LoadParticipant(String name, int tag, Api api, ChaosPlatform platform, int slots) {
        this.name = name;
        this.tag = tag;
        this.api = api;
        this.platform = platform;
        this.slots = slots;
    }

    /** Joins {@code meetingId} (created by the caller if null) and connects signaling and media; blocking. */
    void start(String meetingIdOrNull) throws Exception {
        token = api.token(principal, name);
        meetingId = meetingIdOrNull != null ? meetingIdOrNull : api.createMeeting(token, "chaos " + name);
        pid = api.join(token, meetingId, name);
        for (int attempt = 1; ; attempt++) {
            try {
                newGeneration();
                break;
            } catch (Exception e) {
                // as the SDK does on not_authorized / media_server_unavailable: a new transport generation
                ChaosPlatform.log("  %s: connect attempt %d failed: %s", name, attempt, e.getMessage());
                if (attempt == 5) throw e;
                Api.sleep(500);
            }
        }
        Thread.ofVirtual().name("load-" + name).start(this::supervise);
    }

    private void supervise() {
        long lastPing = System.nanoTime();
        while (!closed) {
            Api.sleep(250);
            if (closed || removed) continue;
            try {
                long now = System.nanoTime();
                if (needNewGeneration || silent(pub, now) || silent(sub, now)) {
                    needNewGeneration = false;
                    newGeneration();
                } else if (!wsOpen) {
                    reopenSocket();
                } else if (now - lastPing > TimeUnit.SECONDS.toNanos(10)) {
                    send(Api.JSON.createObjectNode().put("type", "ping"));
                    lastPing = now;
                }
            } catch (Exception e) {
                lastError = e.toString();
                Api.sleep(500);
            }
        }
    }

    private static boolean silent(MediaLink l, long now) {
        return l == null || (l.connected() && now - l.lastInboundNanos > SILENCE_NANOS);
    }

    /** A new attempt: the next transport generation, placed by the controller on a live SFU. */
    private void newGeneration() throws Exception {
        long t0 = System.nanoTime();
        String key = UUID.randomUUID().toString();
        Api.Reply r = api.transports(token, meetingId, pid, generation, key);
        if (r.status() == 409 && r.body().has("current_transport_generation")) {
            generation = r.body().path("current_transport_generation").asLong();
            r = api.transports(token, meetingId, pid, generation, key);
        }
        if (r.status() == 403) {
            removed = true;
            return;
        }
        if (!r.ok()) throw new IllegalStateException("transport: " + r);
        attemptKey = key;
        attemptExpected = generation;
        boolean moved = generation > 0;
        generation = r.body().path("transport_generation").asLong();
        closeLinks();
        long t1 = System.nanoTime();
        openSocket(r.body(), cursor != null);
        long t2 = System.nanoTime();
        connectMedia();
        needNewGeneration = false; // hints about the SFU we just left, repeated while we moved, are stale now
        if (moved) {
            generationMoves.incrementAndGet();
            ChaosPlatform.log("  %s moved to generation %d on %s in %d ms (transport %d, socket %d, media %d)", name, generation,
                sfuPod, (System.nanoTime() - t0) / 1_000_000, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (System.nanoTime() - t2) / 1_000_000);
        }
    }

    /** The socket dropped: a fresh ticket for the same attempt (same generation) and resume from the cursor. */
    private void reopenSocket() throws Exception {
        Api.Reply r = api.transports(token, meetingId, pid, attemptExpected, attemptKey);
        if (r.status() == 409) {
            needNewGeneration = true;
            return;
        }
        if (r.status() == 403) {
            removed = true;
            return;
        }
        if (!r.ok()) throw new IllegalStateException("transport (same attempt): " + r);
        openSocket(r.body(), true);
        socketReopens.incrementAndGet();
    }

    private void openSocket(JsonNode transport, boolean resume) throws Exception {
        WebSocket old = ws;
        if (old != null) old.abort();
        wsOpen = false;
        String ticket = transport.path("connect_ticket").asText();
        sfuPod = sfuOf(ticket);
        String endpoint = transport.path("signaling_endpoint").asText();
        CompletableFuture<JsonNode> joined = expect("joined");
        ws = WS_HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(3)).buildAsync(URI.create(endpoint), new Listener())
            .get(5, TimeUnit.SECONDS);
        wsOpen = true;
        ObjectNode m = Api.JSON.createObjectNode().put("connect_ticket", ticket);
        if (resume && cursor != null) m.put("type", "resume").put("resume_after", cursor);
        else m.put("type", "join");
        send(m);
        JsonNode j = joined.get(10, TimeUnit.SECONDS);
        if (j.has("cursor")) cursor = j.path("cursor").asText();
    }

    private void connectMedia() throws Exception {
        MediaLink p = new MediaLink(new MediaLink.Handler() {
            @Override
            public void onRtp(byte[] b, int n, long nanos) {
            }

            @Override
            public void onRtcp(byte[] b, int n) {
                for (int o = 0; o >= 0 && o < n; o = Rtcp.next(b, o, n)) {
                    if (Rtcp.type(b, o) == Rtcp.PSFB && Rtcp.count(b, o) == Rtcp.FMT_PLI) keyframeWanted = true;
                }
            }
        });
        MediaLink s = new MediaLink(new MediaLink.Handler() {
            @Override
            public void onRtp(byte[] b, int n, long nanos) {
                countReceived(b, n);
            }

            @Override
            public void onRtcp(byte[] b, int n) {
            }
        });
        try {
            JsonNode pa = offer("publish", publishOffer(p));
            p.connect(pa.path("sdp").asText(), platform::mediaPortFor);
            pub = p;
            keyframeWanted = true;
            JsonNode sa = offer("subscribe", subscribeOffer(s));
            s.connect(sa.path("sdp").asText(), platform::mediaPortFor);
            sub = s;
        } catch (Exception e) {
            p.close();
            s.close();
            throw e;
        }
    }

    private JsonNode offer(String kind, String sdp) throws Exception {
        CompletableFuture<JsonNode> answer = expect("answer:" + kind);
        offers.put(kind, sdp);
        send(Api.JSON.createObjectNode().put("type", "offer").put("transport", kind).put("sdp", sdp));
        return answer.get(15, TimeUnit.SECONDS);
    }

    private CompletableFuture<JsonNode> expect(String what) {
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        waiting.put(what, f);
        return f;
    }

    private void send(JsonNode m) {
        WebSocket w = ws;
        if (w == null) return;
        try {
            w.sendText(m.toString(), true).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            wsOpen = false;
        }
    }

    private void onMessage(JsonNode m) {
        String type = m.path("type").asText();
        switch (type) {
            case "joined" -> complete("joined", m);
            case "answer" -> complete("answer:" + m.path("transport").asText(), m);
            case "error" -> {
                lastError = m.toString();
                String code = m.path("code").asText();
                if (code.equals("lease_in_doubt") && retryOffer(m)) return;
                if (code.equals("not_admitted") || code.equals("participant_removed")) removed = true;
                waiting.values().forEach(f -> f.completeExceptionally(new IllegalStateException(m.toString())));
                waiting.clear();
            }
            case "event" -> {
                if (m.hasNonNull("cursor")) cursor = m.path("cursor").asText();
                JsonNode e = m.path("event");
                String et = e.path("type").asText();
                if (et.equals("participant_removed") && pid.equals(e.path("participant_id").asText())) removed = true;
                if (et.equals("media_server_lost") && e.path("detail").asText().equals(sfuPod)) needNewGeneration = true;
                if (et.equals("new_generation_required")) needNewGeneration = true;
            }
            case "new_generation_required" -> needNewGeneration = true;
            default -> {
            }
        }
    }

    /**
     * As the SDK does: an offer answered {@code lease_in_doubt} (the owner could not vouch for its lease) goes again,
     * unchanged, after the pause it names, while its answer is still awaited. False when there is nothing to retry.
     */
    private boolean retryOffer(JsonNode m) {
        String kind = m.path("transport").asText();
        String sdp = offers.get(kind);
        if (sdp == null || !waiting.containsKey("answer:" + kind)) return false;
        long pause = Math.max(100, Math.min(5000, m.path("retry_after_ms").asLong(500)));
        Thread.ofVirtual().start(() -> {
            Api.sleep(pause);
            if (waiting.containsKey("answer:" + kind)) {
                send(Api.JSON.createObjectNode().put("type", "offer").put("transport", kind).put("sdp", sdp));
            }
        });
        return true;
    }

    private void complete(String what, JsonNode m) {
        CompletableFuture<JsonNode> f = waiting.remove(what);
        if (f != null) f.complete(m);
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String s = text.toString();
                text.setLength(0);
                try {
                    onMessage(Api.JSON.readTree(s));
                } catch (Exception e) {
                    lastError = "bad message: " + e;
                }
            }
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
            if (w == ws) wsOpen = false;
            return null;
        }

        @Override
        public void onError(WebSocket w, Throwable error) {
            if (w == ws) wsOpen = false;
        }
    }

    /** The ticket's {@code sfu} claim (which pod our media is on); the ticket itself is never logged. */
    private static String sfuOf(String ticket) {
        try {
            String[] parts = ticket.split("\\.");
            JsonNode claims = Api.JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
            return claims.path("sfu").asText();
        } catch (Exception e) {
            return "";
        }
    }

    private void countReceived(byte[] b, int n) {
        if (RtpPacket.hasPadding(b, 0) || n < 24) return;
        int o = n - 12;
        if (RtpPacket.readUint16(b, o) != TAG_MAGIC) return;
        int from = RtpPacket.readUint16(b, o + 2);
        long sentNanos = 0;
        for (int i = 0; i < 8; i++) sentNanos = (sentNanos << 8) | (b[o + 4 + i] & 0xFF);
        long sent = sentNanos;
        earliestSent.computeIfAbsent(from, k -> new AtomicLong(Long.MAX_VALUE)).accumulateAndGet(sent, Math::min);
        receivedFrom.computeIfAbsent(from, k -> new AtomicLong()).incrementAndGet();
    }

    /** The earliest send time among packets from {@code tag} received since the last call ({@link Long#MAX_VALUE}: none). */
    long takeEarliestSent(int tag) {
        AtomicLong a = earliestSent.get(tag);
        return a == null ? Long.MAX_VALUE : a.getAndSet(Long.MAX_VALUE);
    }

    long receivedFrom(int tag) {
        AtomicLong a = receivedFrom.get(tag);
        return a == null ? 0 : a.get();
    }

    // ---------------------------------------------------------------- publishing

    private String publishOffer(MediaLink t) {
        String tl = t.transportLines();
        return "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:0\r\n"
            + "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=sendonly\r\n"
            + "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\na=ssrc:" + (audioSsrc & 0xFFFFFFFFL) + " cname:chaos\r\n"
            + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:1\r\n"
            + "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=sendonly\r\n"
            + "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\n"
            + "a=ssrc:" + (videoSsrc & 0xFFFFFFFFL) + " cname:chaos\r\n";
    }

    private String subscribeOffer(MediaLink t) {
        String tl = t.transportLines();
        StringBuilder sb = new StringBuilder("v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE");
        for (int i = 0; i < 2 * slots; i++) sb.append(' ').append(i);
        sb.append("\r\n");
        for (int i = 0; i < slots; i++) {
            sb.append("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(2 * i)
                .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=recvonly\r\na=rtpmap:111 opus/48000/2\r\n");
            sb.append("m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(2 * i + 1)
                .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\n")
                .append("a=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\n");
        }
        return sb.toString();
    }

    /** Called every 10 ms by the media clock: audio every 20 ms, a video frame every ~66 ms. */
    void tick(long tick) {
        MediaLink l = pub;
        if (l == null || closed) return;
        if (tick % 2 == 0) {
            int p = header(audioSsrc, audioSeq++, 111, System.nanoTime() / 20_833, false);
            for (int i = 0; i < 80; i++) buf[p + i] = (byte) i;
            send(l, stamp(p + 80));
        }
        if (tick % 7 == 0) {
            boolean key = keyframeWanted || tick % 300 == 0;
            keyframeWanted = false;
            int packets = key ? 3 : 1;
            int pic = pictureId++ & 0x7FFF;
            long ts = System.nanoTime() / 11_111;
            for (int i = 0; i < packets; i++) {
                int p = header(videoSsrc, videoSeq++, 96, ts, i == packets - 1);
                buf[p++] = (byte) (i == 0 ? 0x90 : 0x80);
                buf[p++] = (byte) 0x80;
                buf[p++] = (byte) (0x80 | (pic >>> 8));
                buf[p++] = (byte) pic;
                if (i == 0) {
                    buf[p] = (byte) (key ? 0x10 : 0x11);
                    buf[p + 1] = 0;
                    buf[p + 2] = 0;
                    buf[p + 3] = (byte) 0x9d;
                    buf[p + 4] = 0x01;
                    buf[p + 5] = 0x2a;
                    buf[p + 6] = (byte) 320;
                    buf[p + 7] = (byte) (320 >>> 8);
                    buf[p + 8] = (byte) 180;
                    buf[p + 9] = 0;
                }
                p += 500;
                send(l, stamp(p));
            }
        }
    }

    private int header(int ssrc, int seq, int pt, long ts, boolean marker) {
        byte[] b = buf;
        b[0] = (byte) 0x90;
        b[1] = (byte) ((marker ? 0x80 : 0) | pt);
        RtpPacket.setSequence(b, 0, seq & 0xFFFF);
        RtpPacket.setTimestamp(b, 0, ts & 0xFFFFFFFFL);
        RtpPacket.setSsrc(b, 0, ssrc);
        b[12] = (byte) 0xBE;
        b[13] = (byte) 0xDE;
        RtpPacket.writeUint16(b, 14, 1);
        b[16] = (byte) (4 << 4);
        b[17] = (byte) (pt == 111 ? '0' : '1');
        b[18] = 0;
        b[19] = 0;
        return 20;
    }

    private int stamp(int p) {
        RtpPacket.writeUint16(buf, p, TAG_MAGIC);
        RtpPacket.writeUint16(buf, p + 2, tag);
        long now = System.nanoTime();
        for (int i = 7; i >= 0; i--) buf[p + 4 + 7 - i] = (byte) (now >>> (8 * i));
        return p + 12;
    }

    private void send(MediaLink l, int len) {
        l.sendRtp(buf, len);
        sent.incrementAndGet();
    }

    private void closeLinks() {
        MediaLink p = pub, s = sub;
        pub = null;
        sub = null;
        if (p != null) p.close();
        if (s != null) s.close();
    }

    /** Leaves the meeting politely (leave on the socket) and closes everything. */
    @Override
    public void close() {
        closed = true;
        if (wsOpen) send(Api.JSON.createObjectNode().put("type", "leave"));
        WebSocket w = ws;
        if (w != null) w.abort();
        closeLinks();
    }

    /** Drops the signaling socket without a goodbye (the fault "signaling socket dropped"). */
    void dropSocket() {
        WebSocket w = ws;
        wsOpen = false;
        if (w != null) w.abort();
    }

    String describe() {
        return name + "{pid=" + pid + ", gen=" + generation + ", sfu=" + sfuPod + ", ws=" + wsOpen + ", removed=" + removed
            + ", reopen=" + socketReopens + ", moves=" + generationMoves + ", err=" + lastError + "}";
    }
}
