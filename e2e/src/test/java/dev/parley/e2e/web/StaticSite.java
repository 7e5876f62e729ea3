package dev.parley.e2e.web;

import com.sun.net.httpserver.HttpExchange;
import dev.parley.testsupport.web.StaticServer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves the web client (controller-pod's {@code public/}) and, under {@code /__test__/}, the in-page test
 * files on http://localhost:PORT, using test-support's {@link StaticServer} (loopback only; getUserMedia
 * needs a secure context, which localhost is).
 *
 * <p>Besides files it has two small HTTP endpoints the SDK's REST client is tested against with a
 * real {@code fetch}: {@code /v1/test/flaky/{id}?fail=N} answers 503 problem+json N times and then 201,
 * echoing every Idempotency-Key it saw for that id; {@code /v1/test/problem/{status}/{code}} always
 * answers that problem and counts the calls.
 */
final class StaticSite implements AutoCloseable {
    private final StaticServer server;
    private final Path publicDir;
    private final Path testDir;
    private final Map<String, List<String>> keysById = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> callsById = new ConcurrentHashMap<>();

    StaticSite() throws IOException {
        this.publicDir = publicDir();
        this.testDir = testResources().resolve("web");
        server = StaticServer.ofDirectory(publicDir)
            .handle("/__test__/", this::testFile)
            .handle("/v1/test/", ex -> {
                try (ex) {
                    testEndpoint(ex, ex.getRequestURI().getPath().substring("/v1/test/".length()));
                }
            });
    }

    /** The web client sources: controller-pod/src/main/resources/public (system property overrides). */
    static Path publicDir() {
        String prop = System.getProperty("parley.web.public");
        if (prop != null) {
            return Paths.get(prop);
        }
        Path here = Paths.get("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            Path candidate = p.resolve("controller-pod/src/main/resources/public");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("controller-pod/src/main/resources/public not found from " + here);
    }

    static Path testResources() {
        Path here = Paths.get("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            Path candidate = p.resolve("e2e/src/test/resources");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
            if (p.getFileName() != null && p.getFileName().toString().equals("e2e") && Files.isDirectory(p.resolve("src/test/resources"))) {
                return p.resolve("src/test/resources");
            }
        }
        throw new IllegalStateException("e2e/src/test/resources not found from " + here);
    }

    /** Base URL with "localhost" (a secure context for getUserMedia). */
    String url() {
        return "http://localhost:" + server.port();
    }

    private void testFile(HttpExchange ex) throws IOException {
        try (ex) {
            String rel = ex.getRequestURI().getPath().substring("/__test__/".length());
            Path file = testDir.resolve(rel).normalize();
            if (!file.startsWith(testDir) || !Files.isRegularFile(file)) {
                send(ex, 404, "text/plain", "not found");
                return;
            }
            ex.getResponseHeaders().set("Cache-Control", "no-store");
            send(ex, 200, contentType(file), Files.readAllBytes(file));
        }
    }

    private void testEndpoint(HttpExchange ex, String rest) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            in.readAllBytes();
        }
        String[] parts = rest.split("/");
        if (parts.length >= 2 && parts[0].equals("flaky")) {
            String id = parts[1];
            int fail = 0;
            String q = ex.getRequestURI().getQuery();
            if (q != null && q.startsWith("fail=")) {
                fail = Integer.parseInt(q.substring(5));
            }
            List<String> keys = keysById.computeIfAbsent(id, k -> new ArrayList<>());
            String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
            int n;
            synchronized (keys) {
                keys.add(key == null ? "" : key);
                n = keys.size();
            }
            if (n <= fail) {
                send(ex, 503, "application/problem+json", "{\"type\":\"about:blank\",\"title\":\"unavailable\",\"status\":503,\"code\":\"unavailable\"}");
                return;
            }
            StringBuilder sb = new StringBuilder("{\"attempts\":").append(n).append(",\"keys\":[");
            synchronized (keys) {
                for (int i = 0; i < keys.size(); i++) {
                    sb.append(i == 0 ? "" : ",").append('"').append(keys.get(i).replace("\"", "")).append('"');
                }
            }
            sb.append("]}");
            send(ex, 201, "application/json", sb.toString());
            return;
        }
        if (parts.length >= 3 && parts[0].equals("problem")) {
            int status = Integer.parseInt(parts[1]);
            String code = parts[2];
            int calls = callsById.computeIfAbsent(rest, k -> new AtomicInteger()).incrementAndGet();
            ex.getResponseHeaders().set("X-Calls", Integer.toString(calls));
            send(ex, status, "application/problem+json",
                "{\"type\":\"https://parley.dev/problems/" + code + "\",\"title\":\"refused\",\"status\":" + status
                    + ",\"code\":\"" + code + "\",\"detail\":\"test refusal\",\"calls\":" + calls + "}");
            return;
        }
        if (parts.length >= 2 && parts[0].equals("calls")) {
            AtomicInteger c = callsById.get(rest.substring("calls/".length()));
            send(ex, 200, "application/json", "{\"calls\":" + (c == null ? 0 : c.get()) + "}");
            return;
        }
        send(ex, 404, "application/problem+json", "{\"status\":404,\"code\":\"not_found\"}");
    }

    private static String contentType(Path f) {
        String n = f.getFileName().toString();
        if (n.endsWith(".html")) return "text/html; charset=utf-8";
        if (n.endsWith(".js") || n.endsWith(".mjs")) return "text/javascript; charset=utf-8";
        if (n.endsWith(".css")) return "text/css; charset=utf-8";
        if (n.endsWith(".json")) return "application/json";
        if (n.endsWith(".svg")) return "image/svg+xml";
        if (n.endsWith(".png")) return "image/png";
        return "application/octet-stream";
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        send(ex, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
    }

    @Override
    public void close() {
        server.close();
    }
}
