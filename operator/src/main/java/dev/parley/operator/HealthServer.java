package dev.parley.operator;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * {@code /healthz} (process alive) and {@code /readyz} (reconcilers registered and started) for the kubelet probes,
 * and {@code /metrics} (Prometheus text) for scraping.
 */
final class HealthServer {
    private final AtomicBoolean ready = new AtomicBoolean();

    private HealthServer() {
    }

    static HealthServer start(String bind, int port, Supplier<String> metrics) {
        HealthServer h = new HealthServer();
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(bind, port), 16);
            s.createContext("/metrics", ex -> {
                ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                reply(ex, 200, metrics.get());
            });
            s.createContext("/healthz", ex -> reply(ex, 200, "ok"));
            s.createContext("/readyz", ex -> reply(ex, h.ready.get() ? 200 : 503, h.ready.get() ? "ready" : "starting"));
            s.start();
        } catch (IOException e) {
            throw new UncheckedIOException("health server on " + bind + ":" + port, e);
        }
        return h;
    }

    void ready() {
        ready.set(true);
    }

    private static void reply(com.sun.net.httpserver.HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(code, b.length);
        try (var out = ex.getResponseBody()) {
            out.write(b);
        }
    }
}
