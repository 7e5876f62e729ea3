package dev.parley.controller.testing;

import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A signaling client on java.net.http's WebSocket that queues every message it receives. */
public final class WsClient implements AutoCloseable {
    public final BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
    private final WebSocket ws;
    private volatile boolean closed;
    private volatile int closeCode = -1;
    private volatile String closeReason;
    private final java.util.concurrent.CountDownLatch closedLatch = new java.util.concurrent.CountDownLatch(1);

    public WsClient(String url) {
        this.ws = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(3))
                .buildAsync(URI.create(url), new WebSocket.Listener() {
                    private final StringBuilder buf = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        buf.append(data);
                        if (last) {
                            try {
                                received.add(ControllerHarness.JSON.readTree(buf.toString()));
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                            buf.setLength(0);
                        }
                        webSocket.request(1);
                        return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
                        closeCode = statusCode;
                        closeReason = reason;
                        closed = true;
                        closedLatch.countDown();
                        return null;
                    }

                    @Override
                    public void onError(WebSocket webSocket, Throwable error) {
                        closedLatch.countDown(); // no close code: the connection failed
                    }
                }).join();
    }

    public void send(String json) {
        ws.sendText(json, true).join();
    }

    /** The next message of a type (others before it are skipped), or an AssertionError on timeout. */
    public JsonNode await(String type, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        java.util.List<String> skipped = new java.util.ArrayList<>();
        while (true) {
            long left = deadline - System.nanoTime();
            JsonNode n = received.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (n == null) {
                throw new AssertionError("no '" + type + "' message within " + millis + " ms; skipped: " + skipped);
            }
            if (type.equals(n.path("type").asText())) {
                return n;
            }
            skipped.add(n.toString());
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** Waits up to {@code millis} for the server to close the socket; true when it did. */
    public boolean awaitClose(long millis) throws InterruptedException {
        return closedLatch.await(millis, TimeUnit.MILLISECONDS);
    }

    /** The close code the server sent (-1 while open). */
    public int closeCode() {
        return closeCode;
    }

    /** The close reason the server sent (null while open). */
    public String closeReason() {
        return closeReason;
    }

    /** Drops the TCP connection without a close handshake (a vanished client). */
    public void abort() {
        ws.abort();
    }

    @Override
    public void close() {
        if (!ws.isOutputClosed()) {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye");
        }
    }
}
