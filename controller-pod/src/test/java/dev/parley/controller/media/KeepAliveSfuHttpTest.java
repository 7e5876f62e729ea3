package dev.parley.controller.media;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The grant pushes' HTTP client against real servers on loopback (the JDK's HttpServer and raw sockets). */
class KeepAliveSfuHttpTest {
    private final KeepAliveSfuHttp http = new KeepAliveSfuHttp();
    private HttpServer server;
    private ServerSocket raw;

    @AfterEach
    void stop() throws IOException {
        http.close();
        if (server != null) {
            server.stop(0);
        }
        if (raw != null) {
            raw.close();
        }
    }

    private static long in(long ms) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    }

    private String jdkServer(boolean chunked) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
        server.createContext("/", ex -> {
            clientPorts.add(ex.getRemoteAddress().getPort());
            byte[] in = ex.getRequestBody().readAllBytes();
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            byte[] out = (ex.getRequestMethod() + " " + ex.getRequestURI() + " " + new String(in, StandardCharsets.UTF_8)
                    + " " + auth + " " + clientPorts.size()).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(ex.getRequestURI().getPath().endsWith("/missing") ? 404 : 200, chunked ? 0 : out.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(out);
            }
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void answersOnOneKeptAliveConnection() throws IOException {
        String base = jdkServer(false);
        for (int i = 1; i <= 3; i++) {
            byte[] body = ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8);
            KeepAliveSfuHttp.Response r = http.exchange("PUT", base, "/internal/v1/grants", body, in(2000),
                    "Authorization", "Bearer s");
            assertEquals(200, r.status());
            // the last number is how many client connections the server has seen: always the same one
            assertEquals("PUT /internal/v1/grants {\"n\":" + i + "} Bearer s 1", new String(r.body(), StandardCharsets.UTF_8));
        }
        assertEquals(1, http.idleConnections(base));
        KeepAliveSfuHttp.Response nf = http.exchange("PUT", base, "/x/missing", new byte[0], in(2000));
        assertEquals(404, nf.status());
        assertEquals(1, http.idleConnections(base));
    }

    @Test
    void largeBodiesGoOutWhole() throws IOException {
        String base = jdkServer(true);
        byte[] big = "g".repeat(300_000).getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 2; i++) {
            KeepAliveSfuHttp.Response r = http.exchange("PUT", base, "/b", big, in(5000));
            assertEquals("PUT /b " + "g".repeat(300_000) + " null 1", new String(r.body(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void readsChunkedAnswers() throws IOException {
        String base = jdkServer(true);
        KeepAliveSfuHttp.Response r = http.exchange("PUT", base, "/c", "abc".getBytes(StandardCharsets.UTF_8), in(2000));
        assertEquals(200, r.status());
        assertEquals("PUT /c abc null 1", new String(r.body(), StandardCharsets.UTF_8));
        KeepAliveSfuHttp.Response again = http.exchange("PUT", base, "/c", new byte[0], in(2000));
        assertEquals("PUT /c  null 1", new String(again.body(), StandardCharsets.UTF_8));
    }

    /** A server that answers each request with Content-Length and then closes the connection without saying so. */
    @Test
    void resendsOnceWhenTheServerClosedTheIdleConnection() throws Exception {
        raw = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        AtomicInteger requests = new AtomicInteger();
        Thread t = Thread.ofVirtual().start(() -> {
            while (!raw.isClosed()) {
                try (Socket s = raw.accept()) {
                    BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                    int length = 0;
                    for (String line = r.readLine(); line != null && !line.isEmpty(); line = r.readLine()) {
                        if (line.toLowerCase().startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).trim());
                        }
                    }
                    char[] body = new char[length];
                    int got = 0;
                    while (got < length) {
                        got += r.read(body, got, length - got);
                    }
                    int n = requests.incrementAndGet();
                    byte[] out = ("ok " + n + " " + new String(body)).getBytes(StandardCharsets.UTF_8);
                    s.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: " + out.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    s.getOutputStream().write(out);
                } catch (IOException e) {
                    // socket closed by the test
                }
            }
        });
        String base = "http://127.0.0.1:" + raw.getLocalPort();
        assertEquals("ok 1 a", new String(http.exchange("PUT", base, "/g", "a".getBytes(), in(2000)).body()));
        assertEquals(1, http.idleConnections(base)); // we think it is alive; the server has closed it
        Thread.sleep(50);
        assertEquals("ok 2 b", new String(http.exchange("PUT", base, "/g", "b".getBytes(), in(2000)).body()));
        assertEquals(2, requests.get()); // sent once on the stale connection (never read), once on a new one
        raw.close();
        t.join(2000);
    }

    @Test
    void aSilentServerTimesOutAtTheDeadline() throws Exception {
        raw = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> {
            try {
                accepted.add(raw.accept()); // accepts and never answers
            } catch (IOException ignored) {
                // closed by the test
            }
        });
        String base = "http://127.0.0.1:" + raw.getLocalPort();
        long t0 = System.nanoTime();
        assertThrows(SocketTimeoutException.class, () -> http.exchange("PUT", base, "/g", new byte[1], in(300)));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 250 && ms < 2000, "timed out after " + ms + " ms");
        assertEquals(0, http.idleConnections(base)); // a timed-out connection is never reused
        for (Socket s : accepted) {
            s.close();
        }
    }

    @Test
    void nothingIsSentOnceTheDeadlineHasPassed() throws Exception {
        String base = jdkServer(false);
        assertThrows(SocketTimeoutException.class,
                () -> http.exchange("PUT", base, "/g", new byte[1], System.nanoTime() - 1));
        // the server saw no request: the first one that gets through is its first connection's first request
        assertArrayEquals("PUT /g x null 1".getBytes(StandardCharsets.UTF_8),
                http.exchange("PUT", base, "/g", "x".getBytes(), in(2000)).body());
    }

    @Test
    void aClosedPortIsRefused() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        assertThrows(ConnectException.class, () -> http.exchange("PUT", "http://127.0.0.1:" + port, "/g", new byte[0], in(1000)));
    }

    @Test
    void refusesMalformedAnswers() throws Exception {
        raw = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        String[] answers = {"garbage\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: " + (KeepAliveSfuHttp.MAX_BODY + 1) + "\r\n\r\n"};
        Thread.ofVirtual().start(() -> {
            for (String a : answers) {
                try (Socket s = raw.accept()) {
                    s.getInputStream().read(new byte[4096]);
                    s.getOutputStream().write(a.getBytes(StandardCharsets.ISO_8859_1));
                    s.shutdownOutput();
                    s.getInputStream().read(new byte[16]);
                } catch (IOException ignored) {
                    // next
                }
            }
        });
        String base = "http://127.0.0.1:" + raw.getLocalPort();
        for (String ignored : answers) {
            assertThrows(IOException.class, () -> http.exchange("PUT", base, "/g", new byte[1], in(2000)));
            assertEquals(0, http.idleConnections(base));
        }
    }

    @Test
    void onlyPlainHttpIsHandled() {
        assertTrue(KeepAliveSfuHttp.handles("http://10.0.0.1:7081"));
        assertTrue(!KeepAliveSfuHttp.handles("https://sfu:7081"));
        assertTrue(!KeepAliveSfuHttp.handles(null));
    }
}
