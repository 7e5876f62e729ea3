package dev.parley.controller.media;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;

/**
 * Blocking HTTP/1.1 client with kept-alive connections, for the grant pushes and renewals to SFUs (plain
 * {@code http://} internal URLs on the cluster network). The JDK HttpClient spent about 1.2 CPU-ms per join on
 * these requests in the controller benchmark: each request crossed three threads (caller, selector manager,
 * worker) before its answer reached our own thread. Here the calling thread writes the request and reads the
 * answer on a pooled connection, and nothing else runs.
 *
 * <p>The caller's deadline covers the whole exchange: nothing is written once it has passed (a grant that
 * reaches an SFU later than {@link SfuClient#GRANT_TIMEOUT} after it was made would break the "old grant
 * provably expired" bound), and reads time out at it. A request on a reused connection that fails before any
 * answer byte arrived is sent once more on a new connection (the SFU may have closed the idle connection);
 * the calls going through here are PUTs of grants, which are idempotent.
 */
final class KeepAliveSfuHttp implements AutoCloseable {
    /** An SFU's answer; bigger bodies than this are refused (a grant batch answer is a few KiB). */
    static final int MAX_BODY = 4 << 20;
    /** Idle connections kept per SFU; more are closed when returned. */
    static final int MAX_IDLE = 8;
    private static final int MAX_LINE = 8192;

    record Response(int status, byte[] body) {
    }

    private record Target(String host, int port, String hostHeader) {
    }

    private final Map<String, Target> targets = new ConcurrentHashMap<>();
    private final Map<Target, ConcurrentLinkedDeque<Conn>> idle = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Whether this client can reach that base URL (plain http only). */
    static boolean handles(String base) {
        return base != null && base.regionMatches(true, 0, "http://", 0, 7);
    }

    /**
     * One request; blocks until the answer or the deadline ({@link System#nanoTime()}).
     * {@code headers} alternate name and value.
     */
    Response exchange(String method, String base, String path, byte[] body, long deadlineNanos, String... headers)
            throws IOException {
        Target t = targets.computeIfAbsent(base, KeepAliveSfuHttp::target);
        byte[] head = head(method, t, path, body.length, headers);
        Conn c = idle.computeIfAbsent(t, k -> new ConcurrentLinkedDeque<>()).pollFirst();
        if (c != null) {
            try {
                return exchange(t, c, head, body, deadlineNanos);
            } catch (StaleConnection e) {
                // the SFU closed the idle connection before reading our request: once more on a new one
            }
        }
        c = open(t, deadlineNanos);
        try {
            return exchange(t, c, head, body, deadlineNanos);
        } catch (StaleConnection e) {
            throw e.io;
        }
    }

    private Response exchange(Target t, Conn c, byte[] head, byte[] body, long deadlineNanos) throws IOException {
        boolean keep = false;
        try {
            int ms = remainingMillis(deadlineNanos);
            c.socket.setSoTimeout(ms);
            try {
                c.first = true; // nothing of this request's answer read yet (a write failure counts as stale too)
                // a small request leaves in one write; a large body (a renewal batch) goes out without a copy
                c.out.write(head);
                c.out.write(body);
                c.out.flush();
                Response r = read(c);
                keep = c.reusable;
                return r;
            } catch (IOException e) {
                if (c.first && c.reused && !(e instanceof SocketTimeoutException)) {
                    throw new StaleConnection(e);
                }
                throw e;
            }
        } finally {
            if (keep && !closed) {
                release(t, c);
            } else {
                c.close();
            }
        }
    }

    private void release(Target t, Conn c) {
        ConcurrentLinkedDeque<Conn> q = idle.computeIfAbsent(t, k -> new ConcurrentLinkedDeque<>());
        if (q.size() >= MAX_IDLE) {
            c.close();
            return;
        }
        c.reused = true;
        q.addFirst(c);
    }

    private static int remainingMillis(long deadlineNanos) throws SocketTimeoutException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (left <= 0) {
            throw new SocketTimeoutException("deadline passed before the request was sent");
        }
        return (int) Math.min(left, Integer.MAX_VALUE);
    }

    private static Conn open(Target t, long deadlineNanos) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(t.host(), t.port()), remainingMillis(deadlineNanos));
            return new Conn(s);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static Target target(String base) {
        URI u = URI.create(base);
        if (!"http".equalsIgnoreCase(u.getScheme()) || u.getHost() == null) {
            throw new IllegalArgumentException("not a plain http URL: " + base);
        }
        int port = u.getPort() < 0 ? 80 : u.getPort();
        String host = u.getHost();
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return new Target(bare, port, host + ":" + port);
    }

    private static byte[] head(String method, Target t, String path, int contentLength, String... headers) {
        StringBuilder sb = new StringBuilder(256).append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ")
                .append(t.hostHeader()).append("\r\nContent-Length: ").append(contentLength).append("\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            sb.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        return sb.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static Response read(Conn c) throws IOException {
        String status = line(c);
        c.first = false; // an answer has begun: from here on a failure is not a stale connection
        if (status.length() < 12 || !status.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x answer");
        }
        int code = parseStatus(status);
        long length = -1;
        boolean chunked = false;
        boolean close = status.startsWith("HTTP/1.0");
        for (String h = line(c); !h.isEmpty(); h = line(c)) {
            int colon = h.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line");
            }
            String name = h.substring(0, colon).trim();
            String value = h.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                length = parseLength(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                chunked = value.toLowerCase(java.util.Locale.ROOT).endsWith("chunked");
            } else if (name.equalsIgnoreCase("Connection")) {
                close = value.equalsIgnoreCase("close") || (close && !value.equalsIgnoreCase("keep-alive"));
            }
        }
        byte[] body;
        if (chunked) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            for (long n = chunkSize(line(c)); n > 0; n = chunkSize(line(c))) {
                if (buf.size() + n > MAX_BODY) {
                    throw new IOException("answer body too large");
                }
                buf.write(exactly(c.in, (int) n));
                if (!line(c).isEmpty()) {
                    throw new IOException("malformed chunk");
                }
            }
            while (!line(c).isEmpty()) {
                // trailers: ignored
            }
            body = buf.toByteArray();
        } else if (length >= 0) {
            if (length > MAX_BODY) {
                throw new IOException("answer body too large");
            }
            body = exactly(c.in, (int) length);
        } else if (code == 204 || code == 304 || code / 100 == 1) {
            body = new byte[0];
        } else {
            // delimited by the end of the connection
            body = c.in.readNBytes(MAX_BODY + 1);
            if (body.length > MAX_BODY) {
                throw new IOException("answer body too large");
            }
            close = true;
        }
        c.reusable = !close;
        return new Response(code, body);
    }

    private static int parseStatus(String status) throws IOException {
        try {
            return Integer.parseInt(status.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new IOException("malformed status line");
        }
    }

    private static long parseLength(String v) throws IOException {
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new IOException("negative Content-Length");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IOException("malformed Content-Length");
        }
    }

    private static long chunkSize(String line) throws IOException {
        int semi = line.indexOf(';');
        String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
        try {
            long n = Long.parseLong(hex, 16);
            if (n < 0 || n > MAX_BODY) {
                throw new IOException("bad chunk size");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IOException("malformed chunk size");
        }
    }

    private static byte[] exactly(InputStream in, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length < n) {
            throw new EOFException("answer body cut short");
        }
        return b;
    }

    private static String line(Conn c) throws IOException {
        StringBuilder sb = c.line;
        sb.setLength(0);
        for (int ch = c.in.read(); ch != '\n'; ch = c.in.read()) {
            if (ch < 0) {
                throw new EOFException("connection closed");
            }
            if (ch != '\r') {
                if (sb.length() >= MAX_LINE) {
                    throw new IOException("answer line too long");
                }
                sb.append((char) ch);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        closed = true;
        for (ConcurrentLinkedDeque<Conn> q : idle.values()) {
            for (Conn c = q.pollFirst(); c != null; c = q.pollFirst()) {
                c.close();
            }
        }
    }

    /** Idle connections kept for an SFU (for tests). */
    int idleConnections(String base) {
        Target t = targets.get(base);
        ConcurrentLinkedDeque<Conn> q = t == null ? null : idle.get(t);
        return q == null ? 0 : q.size();
    }

    /** A failure on a reused connection before any answer byte: the request may be sent again. */
    private static final class StaleConnection extends IOException {
        final IOException io;

        StaleConnection(IOException io) {
            super(io);
            this.io = io;
        }
    }

    private static final class Conn {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        final StringBuilder line = new StringBuilder(64);
        boolean reused;
        boolean reusable;
        /** No byte of the answer read yet. */
        boolean first;

        Conn(Socket s) throws IOException {
            this.socket = s;
            this.in = new BufferedInputStream(s.getInputStream(), 8192);
            this.out = new BufferedOutputStream(s.getOutputStream(), 8192);
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
