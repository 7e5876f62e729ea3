package dev.parley.bench.controller;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The load generator: ONE thread with a selector drives all workers, each a state machine over its own
 * keep-alive HTTP/1.1 connection (one request in flight per worker, as a blocking client would). Per worker and
 * meeting: create (waiting room on) → host joins → {@code attendees} × (join, admit command, transport) → one
 * {@code revoke_audio_publish} with the admitted attendee's version as expected version. Requests are written
 * from pre-encoded constant parts; responses are parsed in place ({@link ResponseParser}) and only the ids the
 * flow needs are read from the JSON ({@link JsonScan}). Every status is checked: an unexpected status, a
 * malformed answer or a broken connection counts as an error, the worker drops its connection and starts a new
 * meeting. (The previous client — 32 platform threads, Jackson trees, nimbus tokens, SecureRandom UUIDs — and
 * stub cost the bench JVM ~2.2 CPU-ms per join, now ~0.5: bench/controller/README.md, sixth session.)
 */
final class LoadLoop {
    /** Latency histograms (µs) and counters of one run; written by the loop thread only. */
    record Stats(Histogram create, Histogram join, Histogram admit, Histogram transport, Histogram revoke,
                 long[] counters) {
        static Stats fresh() {
            return new Stats(h(), h(), h(), h(), h(), new long[2]);
        }

        static Histogram h() {
            return new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        }

        long joins() {
            return counters[0];
        }

        long errors() {
            return counters[1];
        }
    }

    /** What a run did, and the CPU time the loop thread itself spent (all of it, and of that in user mode). */
    record Result(Stats stats, double elapsedSeconds, long loopCpuNanos, long loopUserNanos) {
    }

    private static final byte[] CREATE_BODY =
            Bytes.ascii("{\"title\":\"bench\",\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}");
    private static final byte[] TRANSPORT_BODY = Bytes.ascii("{\"expected_transport_generation\":0,\"device_key_id\":\"dk\"}");
    private static final byte[] POST = Bytes.ascii("POST ");
    private static final byte[] MEETINGS = Bytes.ascii("/v1/meetings");
    private static final byte[] PARTICIPANTS = Bytes.ascii("/participants");
    private static final byte[] COMMANDS = Bytes.ascii("/commands");
    private static final byte[] TRANSPORTS = Bytes.ascii("/transports");
    private static final byte[] CONTENT_LENGTH = Bytes.ascii("\r\nContent-Length: ");
    private static final byte[] AUTH = Bytes.ascii("\r\nAuthorization: Bearer ");
    private static final byte[] TYPE_AND_KEY = Bytes.ascii("\r\nContent-Type: application/json\r\nIdempotency-Key: ");
    private static final byte[] END_HEAD = Bytes.ascii("\r\n\r\n");

    private enum Step { CREATE, HOST_JOIN, JOIN, ADMIT, TRANSPORT, REVOKE }

    private final InetSocketAddress server;
    private final byte[] versionAndHost; // " HTTP/1.1\r\nHost: 127.0.0.1:port"
    private final int attendees;
    private final long endNanos;
    private final Stats st = Stats.fresh();
    private final Ids ids;
    private final long timeoutNanos;
    private final java.util.List<Worker> all = new java.util.ArrayList<>();
    private Selector selector;
    private int active;
    /** Workers whose exchange failed: they start a new meeting from the loop (not from inside the failure). */
    private final java.util.ArrayDeque<Worker> restart = new java.util.ArrayDeque<>();

    /** An answer not complete after this long is an error (the worker drops the connection and starts over). */
    static final long TIMEOUT_MILLIS = 60_000;

    LoadLoop(InetSocketAddress server, int attendees, long endNanos, Ids ids, long timeoutMillis) {
        if (attendees < 1) {
            throw new IllegalArgumentException("attendees must be at least 1 (the revocation targets an attendee)");
        }
        this.server = server;
        this.versionAndHost = Bytes.ascii(" HTTP/1.1\r\nHost: " + server.getHostString() + ":" + server.getPort());
        this.attendees = attendees;
        this.endNanos = endNanos;
        this.ids = ids;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** Runs {@code workers} workers on the calling thread until {@code seconds} have passed and each finished its meeting. */
    static Result run(InetSocketAddress server, int seconds, int workers, int attendees, Ids ids) throws IOException {
        return run(server, seconds, workers, attendees, ids, TIMEOUT_MILLIS);
    }

    static Result run(InetSocketAddress server, int seconds, int workers, int attendees, Ids ids, long timeoutMillis)
            throws IOException {
        long start = System.nanoTime();
        LoadLoop loop = new LoadLoop(server, attendees, start + TimeUnit.SECONDS.toNanos(seconds), ids, timeoutMillis);
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getCurrentThreadCpuTime();
        long user0 = mx.getCurrentThreadUserTime();
        loop.loop(workers);
        return new Result(loop.st, (System.nanoTime() - start) / 1e9, mx.getCurrentThreadCpuTime() - cpu0,
                mx.getCurrentThreadUserTime() - user0);
    }

    void loop(int workers) throws IOException {
        try (Selector sel = Selector.open()) {
            selector = sel;
            for (int i = 0; i < workers; i++) {
                Worker w = new Worker();
                all.add(w);
                active++;
                w.startMeeting();
            }
            long tick = Math.min(1000, Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos) / 4));
            long nextCheck = System.nanoTime() + timeoutNanos / 4;
            while (active > 0) {
                if (System.nanoTime() >= nextCheck) {
                    nextCheck = System.nanoTime() + timeoutNanos / 4;
                    for (Worker w : all) {
                        w.checkTimeout();
                    }
                }
                if (restart.isEmpty()) {
                    sel.select(tick);
                } else {
                    sel.selectNow();
                }
                for (SelectionKey k : sel.selectedKeys()) {
                    Worker w = (Worker) k.attachment();
                    if (k.isValid()) {
                        w.ready(k);
                    }
                }
                sel.selectedKeys().clear();
                for (int i = restart.size(); i > 0; i--) {
                    restart.poll().next();
                }
            }
        }
    }

    private void error(String what) {
        if (++st.counters()[1] <= 5) {
            System.err.println("error: " + what);
        }
    }

    /** One worker: its connection, the request in flight and where it is in its meeting. */
    private final class Worker {
        private SocketChannel ch;
        private SelectionKey key;
        private boolean reused; // the connection carried an earlier exchange
        private boolean resent; // this request was already sent once more after a dropped idle connection
        private final Bytes req = new Bytes(2048);
        private final Bytes body = new Bytes(256);
        private ByteBuffer out;
        private byte[] in = new byte[8192];
        private int inLen;
        private final ResponseParser parser = new ResponseParser();
        private Step step;
        private long sentAt;

        private UUID tenant;
        private String hostToken;
        private String meetingId;
        private String attendeeToken;
        private String participantId;
        private long participantVersion;
        private int attendee;

        void startMeeting() {
            tenant = ids.uuid();
            hostToken = ids.token(tenant, ids.uuid());
            attendee = 0;
            body.clear().add(CREATE_BODY);
            send(Step.CREATE, hostToken, MEETINGS);
        }

        private void startAttendee() {
            attendeeToken = ids.token(tenant, ids.uuid());
            body.clear().add("{\"client_instance_id\":\"").add(ids.uuid().toString()).add("\",\"display_name\":\"a\"}");
            send(Step.JOIN, attendeeToken, MEETINGS, meetingId, PARTICIPANTS);
        }

        /** Composes the request (path = the parts concatenated) and sends it; the answer arrives in {@link #ready}. */
        private void send(Step s, String token, Object... path) {
            step = s;
            req.clear().add(POST);
            for (Object p : path) {
                if (p instanceof byte[] b) {
                    req.add(b);
                } else {
                    req.add('/').add((String) p);
                }
            }
            req.add(versionAndHost).add(CONTENT_LENGTH).add(body.n).add(AUTH).add(token).add(TYPE_AND_KEY)
                    .add(ids.uuid().toString()).add(END_HEAD).add(body);
            resent = false;
            transmit();
        }

        private void transmit() {
            try {
                if (ch == null) {
                    connect();
                }
                out = ByteBuffer.wrap(req.a, 0, req.n);
                inLen = 0;
                parser.reset();
                sentAt = System.nanoTime();
                ch.write(out);
                key.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
            } catch (IOException e) {
                retryOrFail(e.toString());
            }
        }

        /**
         * Nothing of the answer arrived and the connection had carried an earlier exchange: the server closed
         * the idle keep-alive connection, so the same request goes once more on a new one (safe: it carries an
         * Idempotency-Key). Anything else is an error.
         */
        private void retryOrFail(String what) {
            if (inLen == 0 && reused && !resent) {
                drop();
                resent = true;
                boolean keep = resent;
                transmit();
                resent = keep;
            } else {
                failed(what);
            }
        }

        private void connect() throws IOException {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.connect(server); // loopback: blocking connect is immediate
            ch.configureBlocking(false);
            key = ch.register(selector, SelectionKey.OP_READ, this);
            reused = false;
        }

        /** An exchange in flight for longer than the timeout fails (a server that never answers must not stall the run). */
        void checkTimeout() {
            if (ch != null && System.nanoTime() - sentAt > timeoutNanos) {
                failed(step + ": no complete answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
            }
        }

        void ready(SelectionKey k) {
            try {
                if (k.isWritable()) {
                    ch.write(out);
                    if (!out.hasRemaining()) {
                        k.interestOps(SelectionKey.OP_READ);
                    }
                    return;
                }
                if (inLen == in.length) {
                    in = Arrays.copyOf(in, in.length * 2);
                }
                int r = ch.read(ByteBuffer.wrap(in, inLen, in.length - inLen));
                if (r < 0) {
                    if (inLen == 0 && reused && !resent) {
                        retryOrFail("connection closed");
                    } else {
                        complete(parser.parseAtEof(in, inLen));
                    }
                    return;
                }
                if (r > 0) {
                    int done = parser.parse(in, inLen += r);
                    if (done > 0) {
                        if (done != inLen) {
                            throw new IOException("bytes after the response");
                        }
                        complete(done);
                    }
                }
            } catch (IOException e) {
                retryOrFail(e.toString());
            } catch (RuntimeException e) {
                failed(e.toString());
            }
        }

        private void complete(int length) throws IOException {
            long micros = Math.max(1, (System.nanoTime() - sentAt) / 1000);
            reused = true;
            if (parser.close) {
                drop();
            }
            switch (step) {
                case CREATE -> {
                    st.create().recordValue(micros);
                    expect(201);
                    meetingId = field("meeting_id");
                    body.clear().add("{\"client_instance_id\":\"").add(ids.uuid().toString()).add("\",\"display_name\":\"host\"}");
                    send(Step.HOST_JOIN, hostToken, MEETINGS, meetingId, PARTICIPANTS);
                }
                case HOST_JOIN -> {
                    st.join().recordValue(micros);
                    expect(201);
                    startAttendee();
                }
                case JOIN -> {
                    st.join().recordValue(micros);
                    expect(201);
                    participantId = field("participant_id");
                    body.clear().add("{\"type\":\"admit\",\"participant_id\":\"").add(participantId).add("\"}");
                    send(Step.ADMIT, hostToken, MEETINGS, meetingId, COMMANDS);
                }
                case ADMIT -> {
                    st.admit().recordValue(micros);
                    expect(201);
                    participantVersion = JsonScan.topLong(parser.body, parser.bodyOff, parser.bodyLen, "participant_version", -1);
                    if (participantVersion < 0) {
                        throw new IOException("admit answer without participant_version");
                    }
                    body.clear().add(TRANSPORT_BODY);
                    send(Step.TRANSPORT, attendeeToken, MEETINGS, meetingId, PARTICIPANTS, participantId, TRANSPORTS);
                }
                case TRANSPORT -> {
                    st.transport().recordValue(micros);
                    expect(200);
                    st.counters()[0]++;
                    if (++attendee < attendees) {
                        startAttendee();
                    } else {
                        body.clear().add("{\"type\":\"revoke_audio_publish\",\"participant_id\":\"").add(participantId)
                                .add("\",\"expected_participant_version\":").add(participantVersion).add('}');
                        send(Step.REVOKE, hostToken, MEETINGS, meetingId, COMMANDS);
                    }
                }
                case REVOKE -> {
                    st.revoke().recordValue(micros);
                    expect(201);
                    next();
                }
            }
        }

        private void expect(int status) throws IOException {
            if (parser.status != status) {
                int n = Math.min(parser.bodyLen, 300);
                throw new StatusException(step + " -> " + parser.status + " "
                        + new String(parser.body == null ? new byte[0] : parser.body, parser.bodyOff, n, java.nio.charset.StandardCharsets.UTF_8));
            }
        }

        private String field(String name) throws IOException {
            String v = JsonScan.topString(parser.body, parser.bodyOff, parser.bodyLen, name);
            if (v == null || v.isEmpty() || v.indexOf('/') >= 0 || v.indexOf(' ') >= 0) {
                throw new IOException(step + " answer without a usable " + name);
            }
            return v;
        }

        /** After a meeting (or a failure): the next meeting, or this worker is done when the time is up. */
        private void next() {
            if (System.nanoTime() < endNanos) {
                startMeeting();
            } else {
                drop();
                active--;
            }
        }

        private void failed(String what) {
            error(what);
            drop(); // a fresh connection after any failure
            restart.add(this);
        }

        private void drop() {
            if (ch != null) {
                try {
                    ch.close(); // also cancels the key
                } catch (IOException ignored) {
                    // closing anyway
                }
                ch = null;
                key = null;
            }
        }
    }

    /** An answer with another status than the flow expects. */
    static final class StatusException extends IOException {
        StatusException(String message) {
            super(message);
        }
    }
}
