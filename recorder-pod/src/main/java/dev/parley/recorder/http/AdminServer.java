package dev.parley.recorder.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.parley.recorder.metrics.RecorderMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Internal port: {@code GET /healthz}, {@code GET /readyz}, {@code GET /metrics}, {@code GET /state}
 * (this generation's manifest) and {@code POST /stop} (bearer secret when one is configured).
 */
public final class AdminServer implements AutoCloseable {
    private final HttpServer server;

    public AdminServer(String bind, int port, RecorderMetrics metrics, BooleanSupplier ready,
                       Supplier<byte[]> state, Consumer<String> stop, String secret) throws IOException {
        server = HttpServer.create(new InetSocketAddress(bind, port), 16);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> Thread.ofPlatform().daemon().name("admin").unstarted(r)));
        server.createContext("/healthz", ex -> send(ex, 200, "text/plain", "ok\n"));
        server.createContext("/readyz", ex -> {
            boolean ok = ready.getAsBoolean();
            send(ex, ok ? 200 : 503, "text/plain", ok ? "ready\n" : "not ready\n");
        });
        server.createContext("/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4", metrics.render()));
        server.createContext("/state", ex -> {
            byte[] body = state.get();
            if (body == null) {
                problem(ex, 404, "no manifest yet");
            } else {
                send(ex, 200, "application/json", body);
            }
        });
        postAction("/stop", () -> {
            stop.accept("POST /stop");
            return true;
        }, secret);
        server.start();
    }

    /**
     * Another authenticated {@code POST} action (e.g. {@code /resubscribe}); {@code action} answers whether it
     * applies (202) or not (409).
     */
    public void postAction(String path, java.util.function.BooleanSupplier action, String secret) {
        server.createContext(path, ex -> {
            if (!"POST".equals(ex.getRequestMethod())) {
                problem(ex, 405, "use POST");
                return;
            }
            if (secret != null && !authorized(ex, secret)) {
                problem(ex, 401, "missing or wrong bearer secret");
                return;
            }
            if (action.getAsBoolean()) {
                send(ex, 202, "application/json", "{\"accepted\":true}");
            } else {
                problem(ex, 409, "not applicable to this recorder's media source");
            }
        });
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static boolean authorized(HttpExchange ex, String secret) {
        String h = ex.getRequestHeaders().getFirst("Authorization");
        byte[] want = ("Bearer " + secret).getBytes(StandardCharsets.UTF_8);
        return h != null && MessageDigest.isEqual(want, h.getBytes(StandardCharsets.UTF_8));
    }

    private static void problem(HttpExchange ex, int status, String detail) throws IOException {
        send(ex, status, "application/problem+json",
                "{\"status\":" + status + ",\"title\":\"" + detail + "\"}");
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        send(ex, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getRequestBody().readAllBytes();
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, body.length);
        try (var out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
