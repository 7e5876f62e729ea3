package dev.parley.testsupport.kube;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@link LocalPodRunnerIT}'s pods run (not a Parley component): on {@code PARLEY_BIND_ADDRESS:PARLEY_INTERNAL_PORT}
 * it answers {@code /readyz} (503 until {@code PROBE_READY_AFTER_MS} after start, then 200), {@code /env} (the
 * environment it was given, as {@code KEY=value} lines) and {@code /exit} (exits with status 3).
 */
public final class ProbePod {
    private ProbePod() {
    }

    public static void main(String[] args) throws IOException {
        long readyAt = System.nanoTime() + Long.parseLong(System.getenv().getOrDefault("PROBE_READY_AFTER_MS", "0")) * 1_000_000L;
        HttpServer server = HttpServer.create(new InetSocketAddress(System.getenv("PARLEY_BIND_ADDRESS"),
                Integer.parseInt(System.getenv("PARLEY_INTERNAL_PORT"))), 0);
        server.createContext("/readyz", ex -> reply(ex, System.nanoTime() - readyAt >= 0 ? 200 : 503, "readyz"));
        server.createContext("/env", ex -> {
            StringBuilder b = new StringBuilder();
            Map<String, String> env = new TreeMap<>(System.getenv());
            env.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
            reply(ex, 200, b.toString());
        });
        server.createContext("/exit", ex -> {
            reply(ex, 200, "bye");
            Runtime.getRuntime().halt(3);
        });
        server.start();
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }
}
