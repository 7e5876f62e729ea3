package dev.parley.bench.janus;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Janus session over the plain HTTP REST transport: requests are POSTed to {@code /janus/<session>/<handle>},
 * asynchronous plugin replies and core events (webrtcup, hangup) arrive on a long poll of {@code GET
 * /janus/<session>?maxev=N}, which is matched to the waiting request by transaction id. The long poll keeps the session
 * alive as well; an explicit keepalive is sent every 20 s in case a poll is delayed.
 */
final class JanusHttp implements AutoCloseable {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final AtomicLong transactions = new AtomicLong();
    private final Map<String, CompletableFuture<JanusApi.Reply>> waiting = new ConcurrentHashMap<>();
    private final Map<Long, CompletableFuture<Void>> webrtcUp = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private long session;
    private Thread poller, keepalive;

    /** @param base e.g. {@code http://127.0.0.1:18188/janus} */
    JanusHttp(URI base) { this.base = base; }

    /** Whether the server answers {@code GET /janus/info}. */
    boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base + "/info")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Creates the session and starts its long poll and keepalive threads. */
    void open() throws IOException, InterruptedException {
        session = success(post(base, JanusApi.create(tx()))).dataId();
        poller = Thread.ofPlatform().daemon().name("janus-long-poll").start(this::poll);
        keepalive = Thread.ofPlatform().daemon().name("janus-keepalive").start(() -> {
            try {
                while (!closed) {
                    Thread.sleep(20_000);
                    post(URI.create(base + "/" + session), JanusApi.keepalive(tx()));
                }
            } catch (InterruptedException e) {
                // closing
            } catch (IOException e) {
                if (!closed) System.err.println("janus keepalive failed: " + e.getMessage());
            }
        });
    }

    /** Attaches a handle to the VideoRoom plugin. */
    long attach() throws IOException, InterruptedException {
        long h = success(post(URI.create(base + "/" + session), JanusApi.attach(tx(), JanusApi.VIDEOROOM))).dataId();
        webrtcUp.put(h, new CompletableFuture<>());
        return h;
    }

    /** A synchronous plugin request (create room): the plugin's reply is in the POST's response. */
    JanusApi.Reply sync(long handle, ObjectNode body) throws IOException, InterruptedException {
        return success(post(handleUri(handle), JanusApi.message(tx(), body, null, null)));
    }

    /**
     * An asynchronous plugin request (join, publish, start): Janus acks the POST and sends the reply as an event with
     * the same transaction on the long poll. Fails on a core or plugin error.
     */
    JanusApi.Reply request(long handle, ObjectNode body, String jsepType, String sdp) throws IOException, InterruptedException {
        String tx = tx();
        CompletableFuture<JanusApi.Reply> f = new CompletableFuture<>();
        waiting.put(tx, f);
        try {
            JanusApi.Reply ack = post(handleUri(handle), JanusApi.message(tx, body, jsepType, sdp));
            if (ack.failure() != null) throw new IOException("janus " + body.get("request").asText() + ": " + ack.failure());
            if (!ack.janus().equals("ack")) return success(ack);     // some requests answer at once
            JanusApi.Reply r = f.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (r.failure() != null) throw new IOException("janus " + body.get("request").asText() + ": " + r.failure());
            return r;
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("janus " + body.get("request").asText() + ": no reply within " + REQUEST_TIMEOUT.toSeconds() + " s", e);
        } finally {
            waiting.remove(tx);
        }
    }

    /** Trickles one candidate of the client's, then end-of-candidates. */
    void trickle(long handle, String mid, String candidate) throws IOException, InterruptedException {
        ack(post(handleUri(handle), JanusApi.trickle(tx(), mid, 0, candidate)));
        ack(post(handleUri(handle), JanusApi.trickleCompleted(tx())));
    }

    /** Waits for Janus's {@code webrtcup} on the handle (ICE and DTLS done on Janus's side). */
    void awaitWebrtcUp(long handle, Duration timeout) throws IOException, InterruptedException {
        try {
            webrtcUp.get(handle).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException("janus handle " + handle + ": " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IOException("janus handle " + handle + ": no webrtcup within " + timeout.toSeconds() + " s");
        }
    }

    private void poll() {
        URI uri = URI.create(base + "/" + session + "?maxev=16");
        while (!closed) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) throw new IOException("long poll: HTTP " + r.statusCode());
                for (JanusApi.Reply e : JanusApi.parse(r.body())) dispatch(e);
            } catch (IOException | RuntimeException e) {
                if (closed) return;
                System.err.println("janus long poll: " + e.getMessage());
                try { Thread.sleep(200); } catch (InterruptedException ie) { return; }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void dispatch(JanusApi.Reply e) {
        if (e.transaction() != null) {
            CompletableFuture<JanusApi.Reply> f = waiting.get(e.transaction());
            if (f != null && !e.janus().equals("ack")) { f.complete(e); return; }
        }
        CompletableFuture<Void> up = e.sender() == 0 ? null : webrtcUp.get(e.sender());
        switch (e.janus()) {
            case "webrtcup" -> { if (up != null) up.complete(null); }
            case "hangup" -> {
                if (up != null) up.completeExceptionally(new IOException("hangup"));
                if (!closed) System.err.println("janus: hangup on handle " + e.sender());
            }
            default -> { /* keepalive, media, slowlink, detached: nothing to do */ }
        }
    }

    private URI handleUri(long handle) { return URI.create(base + "/" + session + "/" + handle); }

    private String tx() { return "b" + transactions.incrementAndGet(); }

    private JanusApi.Reply post(URI uri, ObjectNode message) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JanusApi.write(message))).build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException("janus " + message.get("janus").asText() + ": HTTP " + r.statusCode());
        List<JanusApi.Reply> replies = JanusApi.parse(r.body());
        return replies.get(0);
    }

    private static JanusApi.Reply success(JanusApi.Reply r) throws IOException {
        if (r.failure() != null || !r.janus().equals("success")) {
            throw new IOException("janus: expected success, got " + r.janus() + (r.failure() == null ? "" : " " + r.failure()));
        }
        return r;
    }

    private static void ack(JanusApi.Reply r) throws IOException {
        if (r.failure() != null || !r.janus().equals("ack")) throw new IOException("janus trickle: " + r.janus() + " " + r.failure());
    }

    @Override
    public void close() {
        closed = true;
        if (poller != null) poller.interrupt();
        if (keepalive != null) keepalive.interrupt();
        http.shutdownNow();
    }
}
