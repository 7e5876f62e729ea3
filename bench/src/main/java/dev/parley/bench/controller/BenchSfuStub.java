package dev.parley.bench.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.Registrar;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.internal.InternalPaths;
import io.etcd.jetcd.Client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/**
 * STUB SFU for the control-plane benchmark: registers in etcd and acknowledges grants, single-meeting pushes
 * ({@code PUT /internal/v1/grants}) and batched renewals ({@code PUT /internal/v1/grants/batch}) alike, without
 * epoch checks (so that the controller's committed → applied path runs end to end); any other path gets 204.
 * It forwards no media; the benchmark measures the controller, not an SFU.
 *
 * <p>It shares the bench JVM's two cores with the controller, so it is lean: a blocking HTTP/1.1 server (one
 * platform thread per keep-alive connection — the controller's HTTP client keeps a handful), requests parsed in
 * place, acknowledgements written straight from the participant ids and versions in the request ({@link AckWriter}),
 * no object mapping. The bearer secret is checked on every request (401 otherwise).
 */
public final class BenchSfuStub implements AutoCloseable {
    /** Largest request accepted: a renewal batch of 1000 grants is ~170 KiB. */
    static final int MAX_REQUEST = 4 * 1024 * 1024;

    private final ServerSocket server;
    private final byte[] expectedAuth;
    private ProcessLease lease;
    private Registrar registrar;
    private volatile boolean closed;
    /** Requests served, by method and path with ids replaced by {id}: what the controller asks an SFU per join. */
    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.LongAdder> requests =
            new java.util.concurrent.ConcurrentHashMap<>();

    public BenchSfuStub(String pod, String region, Client etcd, String secret) throws IOException {
        this(secret);
        // registration stays the real code path the SFU uses (lease + entry refreshed every 2 s, as sfu-pod does,
        // so the controller's registry watch sees the same traffic); a 20 s lease needs a keep-alive only every
        // ~3 s instead of every 0.8 s (TTL 5) — nothing in the controller depends on the SFU's lease TTL
        ProcessLease l = new ProcessLease(etcd, 20).start();
        String url = url();
        Registrar r = new Registrar(etcd, l, EtcdKeys.sfu(region, pod), () -> new SfuEntry(pod, region, SfuEntry.ACTIVE,
                url, "127.0.0.1", 0, 0, SfuEntry.SfuLoad.idle(), System.currentTimeMillis()), new ObjectMapper(),
                Duration.ofSeconds(2)).start();
        lease = l;
        registrar = r;
    }

    /** The HTTP side only (no etcd registration): for tests. */
    BenchSfuStub(String secret) throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        expectedAuth = Bytes.ascii("Bearer " + secret);
        Thread t = new Thread(this::accept, "sfu-stub-accept");
        t.setDaemon(true);
        t.start();
    }

    /** A copy of the request counts so far (see {@link #requests}). */
    public java.util.Map<String, Long> requestCounts() {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        requests.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> serve(s), "sfu-stub-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("stub SFU accept failed: " + e);
                }
            }
        }
    }

    /** One keep-alive connection: request after request until the client closes it or sends garbage. */
    private void serve(Socket s) {
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            RequestReader reader = new RequestReader(in);
            AckWriter acks = new AckWriter();
            Bytes res = new Bytes(4096);
            while (reader.next()) {
                boolean close = reader.close;
                requests.computeIfAbsent(reader.requestKind(), k -> new java.util.concurrent.atomic.LongAdder()).increment();
                if (!reader.headerIs("authorization", expectedAuth)) {
                    respond(res, 401, null, close);
                } else if (reader.pathIs(InternalPaths.GRANTS)) {
                    respond(res, acks.single(reader.buf, reader.bodyOff, reader.bodyLen) ? 200 : 400, acks.out, close);
                } else if (reader.pathIs(InternalPaths.GRANT_BATCH)) {
                    respond(res, acks.batch(reader.buf, reader.bodyOff, reader.bodyLen) ? 200 : 400, acks.out, close);
                } else {
                    respond(res, 204, null, close);
                }
                out.write(res.a, 0, res.n);
                if (close) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                System.err.println("stub SFU connection dropped: " + e);
            }
        }
    }

    private static final byte[] CRLF = Bytes.ascii("\r\n");

    private static void respond(Bytes res, int status, Bytes json, boolean close) {
        res.clear().add("HTTP/1.1 ").add(status).add(switch (status) {
            case 200 -> " OK";
            case 204 -> " No Content";
            case 400 -> " Bad Request";
            default -> " Unauthorized";
        }).add(CRLF);
        if (close) {
            res.add("Connection: close\r\n");
        }
        if (status == 200 || status == 400) {
            Bytes b = status == 200 ? json : new Bytes(0);
            res.add("Content-Type: application/json\r\nContent-Length: ").add(b.n).add(CRLF).add(CRLF).add(b);
        } else if (status == 204) {
            res.add(CRLF);
        } else {
            res.add("Content-Length: 0\r\n\r\n");
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        if (registrar != null) {
            registrar.close();
            lease.close();
        }
    }

    /** Reads HTTP/1.1 requests with a {@code Content-Length} body from a blocking stream into one reused buffer. */
    static final class RequestReader {
        private final InputStream in;
        byte[] buf = new byte[16 * 1024];
        private int len;      // bytes in buf
        private int start;    // start of the current request
        private int headEnd;  // after the blank line
        int bodyOff;
        int bodyLen;
        boolean close;
        private int pathFrom;
        private int pathTo;

        RequestReader(InputStream in) {
            this.in = in;
        }

        /** Reads the next request; false when the client closed the connection between requests. */
        boolean next() throws IOException {
            // keep what followed the previous request (a pipelined next request), drop the rest
            int next = bodyOff + bodyLen;
            if (next > 0) {
                System.arraycopy(buf, next, buf, 0, len - next);
                len -= next;
            }
            start = 0;
            bodyOff = 0;
            bodyLen = 0;
            headEnd = -1;
            while ((headEnd = headEnd()) < 0) {
                if (len > 16 * 1024) {
                    throw new IOException("request head too long");
                }
                if (!fill()) {
                    if (len == 0) {
                        return false;
                    }
                    throw new IOException("connection closed inside a request");
                }
            }
            // request line: METHOD SP path SP version
            int sp1 = indexOf((byte) ' ', 0, headEnd);
            int sp2 = sp1 < 0 ? -1 : indexOf((byte) ' ', sp1 + 1, headEnd);
            if (sp2 < 0) {
                throw new IOException("bad request line");
            }
            pathFrom = sp1 + 1;
            int q = indexOf((byte) '?', pathFrom, sp2);
            pathTo = q < 0 ? sp2 : q;
            long length = 0;
            close = false;
            int line = indexOf((byte) '\n', 0, headEnd) + 1;
            while (line < headEnd - 2) {
                int le = indexOf((byte) '\n', line, headEnd);
                int colon = indexOf((byte) ':', line, le);
                if (colon < 0) {
                    throw new IOException("bad header line");
                }
                int vs = skipSpaces(colon + 1, le);
                int ve = le > 0 && buf[le - 1] == '\r' ? le - 1 : le;
                if (ResponseParser.nameIs(buf, line, colon, "content-length")) {
                    length = 0;
                    for (int i = vs; i < ve; i++) {
                        if (buf[i] < '0' || buf[i] > '9' || length > MAX_REQUEST) {
                            throw new IOException("bad Content-Length");
                        }
                        length = length * 10 + (buf[i] - '0');
                    }
                } else if (ResponseParser.nameIs(buf, line, colon, "transfer-encoding")) {
                    throw new IOException("chunked requests are not supported by the stub");
                } else if (ResponseParser.nameIs(buf, line, colon, "connection")) {
                    close = ResponseParser.nameIs(buf, vs, ve, "close");
                }
                line = le + 1;
            }
            if (length > MAX_REQUEST) {
                throw new IOException("request too large");
            }
            bodyOff = headEnd;
            bodyLen = (int) length;
            while (len < headEnd + length) {
                if (!fill()) {
                    throw new IOException("connection closed inside a request body");
                }
            }
            return true;
        }

        /** "METHOD /path" of the current request, each path segment longer than 20 characters (an id) as {id}. */
        String requestKind() {
            StringBuilder b = new StringBuilder(new String(buf, 0, pathFrom - 1, java.nio.charset.StandardCharsets.US_ASCII)).append(' ');
            int seg = pathFrom;
            for (int i = pathFrom; i <= pathTo; i++) {
                if (i == pathTo || buf[i] == '/') {
                    if (i > seg) {
                        b.append(i - seg > 20 ? "{id}" : new String(buf, seg, i - seg, java.nio.charset.StandardCharsets.US_ASCII));
                    }
                    if (i < pathTo) b.append('/');
                    seg = i + 1;
                }
            }
            return b.toString();
        }

        boolean pathIs(String p) {
            if (pathTo - pathFrom != p.length()) {
                return false;
            }
            for (int i = 0; i < p.length(); i++) {
                if (buf[pathFrom + i] != p.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        /** Whether header {@code lowerName} is present with exactly {@code value}. */
        boolean headerIs(String lowerName, byte[] value) {
            int line = indexOf((byte) '\n', 0, headEnd) + 1;
            while (line < headEnd - 2) {
                int le = indexOf((byte) '\n', line, headEnd);
                int colon = indexOf((byte) ':', line, le);
                if (ResponseParser.nameIs(buf, line, colon, lowerName)) {
                    int vs = skipSpaces(colon + 1, le);
                    int ve = buf[le - 1] == '\r' ? le - 1 : le;
                    while (ve > vs && buf[ve - 1] == ' ') {
                        ve--;
                    }
                    return java.util.Arrays.equals(buf, vs, ve, value, 0, value.length);
                }
                line = le + 1;
            }
            return false;
        }

        private int skipSpaces(int i, int to) {
            while (i < to && buf[i] == ' ') {
                i++;
            }
            return i;
        }

        private int headEnd() {
            for (int i = Math.max(start, 3); i < len; i++) {
                if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
                    return i + 1;
                }
            }
            return -1;
        }

        private boolean fill() throws IOException {
            if (len == buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.min(buf.length * 2, MAX_REQUEST + 32 * 1024));
                if (len == buf.length) {
                    throw new IOException("request too large");
                }
            }
            int r = in.read(buf, len, buf.length - len);
            if (r < 0) {
                return false;
            }
            len += r;
            return true;
        }

        private int indexOf(byte c, int from, int to) {
            for (int i = from; i < to; i++) {
                if (buf[i] == c) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * Builds the acknowledgement bodies: for {@code {"meeting_id", "controller_epoch", "grants": [...]}} →
     * {@code {"acks": [{"participant_id", "version"}, ...]}}; for a batch {@code {"meetings": [...]}} →
     * {@code {"meetings": [{"meeting_id", "acks": [...]}, ...]}} in request order. Ids are copied as the raw
     * JSON string bytes of the request (already valid JSON strings).
     */
    static final class AckWriter {
        final Bytes out = new Bytes(4096);
        private final Bytes meetingAcks = new Bytes(4096);

        /** A single-meeting push; false if the body is not such a request (the answer is then 400). */
        boolean single(byte[] b, int off, int len) {
            out.clear();
            try {
                JsonScan s = new JsonScan(b, off, len);
                out.add("{\"acks\":");
                if (meeting(s) == null) {
                    return false;
                }
                out.add(meetingAcks).add('}');
                return true;
            } catch (IllegalArgumentException malformed) {
                return false;
            }
        }

        /** A renewal batch; false if the body is not one. */
        boolean batch(byte[] b, int off, int len) {
            out.clear();
            try {
                JsonScan s = new JsonScan(b, off, len);
                s.beginObject();
                boolean seen = false;
                out.add("{\"meetings\":[");
                while (s.nextField()) {
                    if (!s.fieldIs("meetings") || seen) {
                        s.skipValue();
                        continue;
                    }
                    seen = true;
                    s.beginArray();
                    boolean firstMeeting = true;
                    while (s.nextElement()) {
                        int[] id = meeting(s);
                        if (id == null) {
                            return false;
                        }
                        if (!firstMeeting) {
                            out.add(',');
                        }
                        firstMeeting = false;
                        out.add("{\"meeting_id\":").add(b, id[0], id[1] - id[0]).add(",\"acks\":").add(meetingAcks).add('}');
                    }
                }
                out.add("]}");
                return seen;
            } catch (IllegalArgumentException malformed) {
                return false;
            }
        }

        /**
         * Reads one meeting object: its acks into {@link #meetingAcks} (a JSON array), returns the raw span
         * (with quotes) of its meeting_id, or null if it lacks meeting_id or grants.
         */
        private int[] meeting(JsonScan s) {
            meetingAcks.clear().add('[');
            int[] id = null;
            boolean grants = false;
            s.beginObject();
            while (s.nextField()) {
                if (s.fieldIs("meeting_id")) {
                    id = s.rawString();
                } else if (s.fieldIs("grants")) {
                    grants = true;
                    s.beginArray();
                    boolean first = true;
                    while (s.nextElement()) {
                        int[] pid = null;
                        long version = -1;
                        s.beginObject();
                        while (s.nextField()) {
                            if (s.fieldIs("participant_id")) {
                                pid = s.rawString();
                            } else if (s.fieldIs("version")) {
                                version = s.readLong();
                            } else {
                                s.skipValue();
                            }
                        }
                        if (pid == null || version < 0) {
                            throw new IllegalArgumentException("grant without participant_id or version");
                        }
                        if (!first) {
                            meetingAcks.add(',');
                        }
                        first = false;
                        meetingAcks.add("{\"participant_id\":").add(s.bytes(), pid[0], pid[1] - pid[0])
                                .add(",\"version\":").add(version).add('}');
                    }
                } else {
                    s.skipValue();
                }
            }
            meetingAcks.add(']');
            return id != null && grants ? id : null;
        }
    }
}
