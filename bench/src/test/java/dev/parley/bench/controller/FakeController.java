package dev.parley.bench.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.SignedJWT;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tiny stand-in for the controller's REST API on loopback, written independently of the load generator's
 * parsers (line-based reading, Jackson, nimbus): it checks every request the way the controller would (token
 * signature and claims, Idempotency-Key, JSON body, ids that it handed out, the expected version) and records
 * violations, and it can answer in awkward ways (chunked, Connection: close, dropped idle connections, errors).
 */
final class FakeController implements AutoCloseable {
    /** How to misbehave: decided per request number (1-based, across all connections). */
    interface Quirks {
        /** null = answer normally; else the raw response to send instead. */
        default String override(int n, String path) {
            return null;
        }

        default boolean chunked(int n) {
            return false;
        }

        default boolean closeAfter(int n) {
            return false;
        }

        /** Close the connection silently after answering (an idle keep-alive connection the server dropped). */
        default boolean dropAfter(int n) {
            return false;
        }
    }

    static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern JOIN = Pattern.compile("/v1/meetings/([^/]+)/participants");
    private static final Pattern COMMAND = Pattern.compile("/v1/meetings/([^/]+)/commands");
    private static final Pattern TRANSPORT = Pattern.compile("/v1/meetings/([^/]+)/participants/([^/]+)/transports");

    final List<String> violations = new CopyOnWriteArrayList<>();
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger transports = new AtomicInteger();
    final AtomicInteger revokes = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    private final Set<String> keys = ConcurrentHashMap.newKeySet();
    private final Map<String, String> meetingTenant = new ConcurrentHashMap<>();
    private final Map<String, String> participants = new ConcurrentHashMap<>(); // pid -> meeting
    private final Map<String, Long> admittedVersion = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final ServerSocket server;
    private final MACVerifier verifier;
    private final Quirks quirks;

    FakeController(String secret, Quirks quirks) throws Exception {
        this.quirks = quirks;
        verifier = new MACVerifier(secret.getBytes(StandardCharsets.UTF_8));
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "fake-controller");
        t.setDaemon(true);
        t.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", server.getLocalPort());
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> serve(s));
                t.setDaemon(true);
                t.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            while (true) {
                String requestLine = line(in);
                if (requestLine == null) {
                    return;
                }
                Map<String, String> headers = new ConcurrentHashMap<>();
                for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                    int c = h.indexOf(':');
                    headers.put(h.substring(0, c).trim().toLowerCase(), h.substring(c + 1).trim());
                }
                int len = Integer.parseInt(headers.getOrDefault("content-length", "-1"));
                if (len < 0) {
                    violations.add("no Content-Length: " + requestLine);
                    return;
                }
                byte[] body = in.readNBytes(len);
                int n = requests.incrementAndGet();
                String[] parts = requestLine.split(" ");
                String path = parts[1];
                String answer = quirks.override(n, path);
                if (answer == null) {
                    answer = handle(parts[0], path, headers, body, n);
                }
                out.write(answer.getBytes(StandardCharsets.UTF_8));
                out.flush();
                if (quirks.closeAfter(n) || quirks.dropAfter(n)) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the client went away
        }
    }

    private String handle(String method, String path, Map<String, String> headers, byte[] body, int n) {
        if (!method.equals("POST")) {
            violations.add("method " + method);
        }
        if (!"application/json".equals(headers.get("content-type"))) {
            violations.add("content type " + headers.get("content-type"));
        }
        if (!("127.0.0.1:" + server.getLocalPort()).equals(headers.get("host"))) {
            violations.add("host " + headers.get("host"));
        }
        String key = headers.get("idempotency-key");
        if (key == null || !key.matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}") || !keys.add(key)) {
            violations.add("bad or repeated Idempotency-Key " + key);
        }
        String tenant;
        String sub;
        try {
            String auth = headers.getOrDefault("authorization", "");
            SignedJWT jwt = SignedJWT.parse(auth.substring("Bearer ".length()));
            if (!jwt.verify(verifier)) {
                violations.add("token signature");
            }
            tenant = jwt.getJWTClaimsSet().getStringClaim("tid");
            sub = jwt.getJWTClaimsSet().getSubject();
            if (jwt.getJWTClaimsSet().getExpirationTime().getTime() < System.currentTimeMillis()) {
                violations.add("token expired");
            }
        } catch (Exception e) {
            violations.add("token: " + e);
            return respond(401, "{}", n);
        }
        JsonNode b;
        try {
            b = JSON.readTree(body);
        } catch (IOException e) {
            violations.add("body not JSON: " + new String(body, StandardCharsets.UTF_8));
            return respond(400, "{}", n);
        }
        Matcher m;
        if (path.equals("/v1/meetings")) {
            if (!b.path("waiting_room_enabled").asBoolean() || !"transport".equals(b.path("encryption_mode").asText())) {
                violations.add("create body " + b);
            }
            String mid = "m" + ids.incrementAndGet();
            meetingTenant.put(mid, tenant);
            return respond(201, "{\"meeting_id\":\"" + mid + "\",\"status\":\"scheduled\",\"version\":1}", n);
        }
        if ((m = TRANSPORT.matcher(path)).matches()) {
            if (!m.group(1).equals(participants.get(m.group(2))) || !admittedVersion.containsKey(m.group(2))) {
                violations.add("transport for unknown or unadmitted participant " + path);
            }
            if (b.path("expected_transport_generation").asLong(-1) != 0) {
                violations.add("transport body " + b);
            }
            transports.incrementAndGet();
            return respond(200, "{\"transport_generation\":1,\"sfu\":{\"participant_id\":\"nested\"},\"ticket\":\"x.y.z\"}", n);
        }
        if ((m = JOIN.matcher(path)).matches()) {
            if (!tenant.equals(meetingTenant.get(m.group(1)))) {
                violations.add("join with another tenant's token or unknown meeting " + path);
            }
            if (b.path("client_instance_id").asText().length() != 36) {
                violations.add("join body " + b);
            }
            String pid = "p" + ids.incrementAndGet();
            participants.put(pid, m.group(1));
            // a nested participant_id first: the client must read the top-level one
            return respond(201, "{\"media_access\":{\"participant_id\":\"nested\",\"participant_version\":99},"
                    + "\"participant_id\":\"" + pid + "\",\"admission_state\":\"waiting\",\"participant_version\":1}", n);
        }
        if ((m = COMMAND.matcher(path)).matches()) {
            String pid = b.path("participant_id").asText();
            if (!m.group(1).equals(participants.get(pid))) {
                violations.add("command for unknown participant " + b);
            }
            if (b.path("type").asText().equals("admit")) {
                long v = 2 + ids.incrementAndGet() % 5;
                admittedVersion.put(pid, v);
                return respond(201, "{\"command_id\":\"c\",\"state\":\"committed\",\"participant_version\":" + v
                        + ",\"media_enforcement\":\"not_required\"}", n);
            }
            if (b.path("type").asText().equals("revoke_audio_publish")) {
                revokes.incrementAndGet();
                if (b.path("expected_participant_version").asLong(-1) != admittedVersion.getOrDefault(pid, -2L)) {
                    violations.add("revoke with a wrong expected version " + b);
                }
                return respond(201, "{\"command_id\":\"c\",\"state\":\"committed\",\"participant_version\":9}", n);
            }
            violations.add("unknown command " + b);
            return respond(400, "{}", n);
        }
        violations.add("unknown path " + path);
        return respond(404, "{}", n);
    }

    private String respond(int status, String json, int n) {
        String head = "HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\n"
                + (quirks.closeAfter(n) ? "Connection: close\r\n" : "");
        if (quirks.chunked(n)) {
            int half = json.length() / 2;
            return head + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(half) + "\r\n" + json.substring(0, half)
                    + "\r\n" + Integer.toHexString(json.length() - half) + ";ext=1\r\n" + json.substring(half) + "\r\n0\r\n\r\n";
        }
        return head + "Content-Length: " + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + json;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                return b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
