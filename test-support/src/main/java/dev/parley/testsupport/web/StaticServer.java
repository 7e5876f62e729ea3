package dev.parley.testsupport.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A tiny HTTP server on 127.0.0.1 (free port) for browser-test pages. Pages must be opened as
 * {@code http://localhost:PORT/...} ({@link #url(String)}): {@code localhost} is a secure context, so
 * {@code getUserMedia} and WebRTC work without TLS.
 *
 * <p>Content comes from, in order: pages added with {@link #page(String, String)}, a directory, and a
 * classpath prefix.
 */
public final class StaticServer implements AutoCloseable {

    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "mjs", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "json", "application/json",
            "wasm", "application/wasm",
            "png", "image/png",
            "svg", "image/svg+xml",
            "txt", "text/plain; charset=utf-8");

    private final HttpServer server;
    private final ExecutorService executor;
    private final Map<String, byte[]> pages = new ConcurrentHashMap<>();
    private final Path directory;
    private final String classpathPrefix;

    private StaticServer(Path directory, String classpathPrefix) {
        this.directory = directory;
        this.classpathPrefix = classpathPrefix;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a loopback HTTP port", e);
        }
        executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "static-server");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", new ContentHandler());
        server.start();
    }

    /** Serves only pages added with {@link #page(String, String)}. */
    public static StaticServer start() {
        return new StaticServer(null, null);
    }

    /** Serves files under {@code dir}. */
    public static StaticServer ofDirectory(Path dir) {
        return new StaticServer(dir.toAbsolutePath().normalize(), null);
    }

    /** Serves classpath resources under {@code prefix} (e.g. {@code "web"} serves {@code web/index.html} as {@code /index.html}). */
    public static StaticServer ofClasspath(String prefix) {
        String p = prefix.replaceAll("^/+|/+$", "");
        return new StaticServer(null, p);
    }

    /** Adds or replaces an in-memory page, e.g. {@code page("/t.html", "<script>...</script>")}. */
    public StaticServer page(String path, String content) {
        pages.put(path.startsWith("/") ? path : "/" + path, content.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Adds a handler for dynamic responses under {@code path}. */
    public StaticServer handle(String path, HttpHandler handler) {
        server.createContext(path, handler);
        return this;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://localhost:PORT/path} */
    public String url(String path) {
        return "http://localhost:" + port() + (path.startsWith("/") ? path : "/" + path);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private byte[] lookup(String path) throws IOException {
        byte[] page = pages.get(path);
        if (page != null) {
            return page;
        }
        String relative = path.substring(1);
        if (relative.isEmpty() || relative.endsWith("/")) {
            relative = relative + "index.html";
        }
        if (relative.contains("..")) {
            return null;
        }
        if (directory != null) {
            Path file = directory.resolve(relative).normalize();
            if (file.startsWith(directory) && Files.isRegularFile(file)) {
                return Files.readAllBytes(file);
            }
        }
        if (classpathPrefix != null) {
            String name = classpathPrefix.isEmpty() ? relative : classpathPrefix + "/" + relative;
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            try (InputStream in = (cl != null ? cl : StaticServer.class.getClassLoader()).getResourceAsStream(name)) {
                if (in != null) {
                    return in.readAllBytes();
                }
            }
        }
        return null;
    }

    private final class ContentHandler implements HttpHandler {
        @Override
        public void handle(HttpExchange exchange) throws IOException {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                byte[] body = "GET".equals(exchange.getRequestMethod()) || "HEAD".equals(exchange.getRequestMethod())
                        ? lookup(path) : null;
                if (body == null) {
                    byte[] msg = ("not found: " + path).getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
                    exchange.sendResponseHeaders(404, msg.length);
                    exchange.getResponseBody().write(msg);
                    return;
                }
                String type = TYPES.getOrDefault(extension(path), "application/octet-stream");
                exchange.getResponseHeaders().set("Content-Type", path.endsWith("/") ? TYPES.get("html") : type);
                exchange.getResponseHeaders().set("Cache-Control", "no-store");
                if ("HEAD".equals(exchange.getRequestMethod())) {
                    exchange.sendResponseHeaders(200, -1);
                    return;
                }
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        }

        private String extension(String path) {
            int dot = path.lastIndexOf('.');
            return dot < 0 ? "" : path.substring(dot + 1).toLowerCase(Locale.ROOT);
        }
    }
}
