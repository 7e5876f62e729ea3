package dev.parley.bench.controller;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The load generator against {@link FakeController} on loopback: the flow, parsing, and error handling. */
class LoadLoopTest {
    private static final String SECRET = "test-hmac-secret-0123456789abcdef0123456789";

    private static LoadLoop.Result run(FakeController c, int workers, int attendees) throws Exception {
        return LoadLoop.run(c.address(), 1, workers, attendees, new Ids(SECRET, 42));
    }

    @Test
    void runsTheWholeFlowOnOneKeepAliveConnectionPerWorker() throws Exception {
        try (FakeController c = new FakeController(SECRET, new FakeController.Quirks() { })) {
            LoadLoop.Result r = run(c, 3, 4);
            LoadLoop.Stats st = r.stats();
            assertThat(c.violations).isEmpty();
            assertThat(st.errors()).isZero();
            assertThat(st.joins()).isPositive().isEqualTo(c.transports.get()).isEqualTo(st.transport().getTotalCount());
            // every meeting completed: create, host join, 4 × (join, admit, transport), revoke
            long meetings = st.create().getTotalCount();
            assertThat(st.joins()).isEqualTo(4 * meetings);
            assertThat(st.join().getTotalCount()).isEqualTo(5 * meetings);
            assertThat(st.admit().getTotalCount()).isEqualTo(4 * meetings);
            assertThat(st.revoke().getTotalCount()).isEqualTo(meetings).isEqualTo(c.revokes.get());
            assertThat(c.requests.get()).isEqualTo(meetings * 15);
            assertThat(c.connections.get()).isEqualTo(3);
            assertThat(r.loopCpuNanos()).isPositive();
            assertThat(r.elapsedSeconds()).isGreaterThanOrEqualTo(1.0);
        }
    }

    @Test
    void readsChunkedAnswersAndReconnectsAfterConnectionClose() throws Exception {
        try (FakeController c = new FakeController(SECRET, new FakeController.Quirks() {
            @Override
            public boolean chunked(int n) {
                return n % 2 == 0;
            }

            @Override
            public boolean closeAfter(int n) {
                return n % 7 == 0;
            }
        })) {
            LoadLoop.Stats st = run(c, 2, 3).stats();
            assertThat(c.violations).isEmpty();
            assertThat(st.errors()).isZero();
            assertThat(st.joins()).isPositive().isEqualTo(3 * st.create().getTotalCount());
            assertThat(c.connections.get()).isGreaterThan(2);
        }
    }

    @Test
    void resendsOnceWhenTheServerDroppedTheIdleConnection() throws Exception {
        try (FakeController c = new FakeController(SECRET, new FakeController.Quirks() {
            @Override
            public boolean dropAfter(int n) {
                return n % 5 == 0;
            }
        })) {
            LoadLoop.Stats st = run(c, 2, 2).stats();
            assertThat(c.violations).isEmpty();
            assertThat(st.errors()).isZero();
            assertThat(st.joins()).isPositive().isEqualTo(2 * st.create().getTotalCount());
        }
    }

    @Test
    void countsUnexpectedStatusesAndMalformedAnswersAsErrorsAndStartsOver() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean cut = new java.util.concurrent.atomic.AtomicBoolean();
        try (FakeController c = new FakeController(SECRET, new FakeController.Quirks() {
            @Override
            public String override(int n, String path) {
                if (n % 11 == 0 && path.endsWith("/commands")) {
                    return "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\n\r\n{}";
                }
                if (n % 13 == 0 && path.endsWith("/participants")) {
                    return "HTTP/1.1 201 Created\r\nContent-Length: 10\r\n\r\n{\"particip";
                }
                if (n > 10 && path.endsWith("/transports") && cut.compareAndSet(false, true)) {
                    // one byte short: the answer never completes, the request times out
                    return "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{}";
                }
                if (n % 17 == 0 && path.endsWith("/participants")) {
                    return "HTTP/1.1 201 Created\r\nContent-Length: 15\r\n\r\n{\"other\":\"x y\"}";
                }
                return null;
            }
        })) {
            LoadLoop.Result r = LoadLoop.run(c.address(), 1, 2, 3, new Ids(SECRET, 42), 1000);
            LoadLoop.Stats st = r.stats();
            assertThat(c.violations).isEmpty(); // the client never sent an id it had not been given
            assertThat(st.errors()).isPositive();
            assertThat(cut).isTrue();
            // (≤: an answer the server sent may also have been late on this loaded machine; the cut one is not counted)
            assertThat(st.joins()).isPositive().isLessThanOrEqualTo(c.transports.get());
            // a failed meeting is abandoned: only completed meetings send a revocation
            assertThat((long) c.revokes.get()).isPositive().isLessThan(st.create().getTotalCount());
            assertThat(c.connections.get()).isGreaterThan(2); // a fresh connection after each failure
        }
    }

    @Test
    void aServerThatNeverAnswersIsATimeoutErrorNotAStall() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 10, java.net.InetAddress.getLoopbackAddress())) {
            long t0 = System.nanoTime();
            LoadLoop.Stats st = LoadLoop.run(new java.net.InetSocketAddress("127.0.0.1", silent.getLocalPort()), 1, 2, 1,
                    new Ids(SECRET, 1), 400).stats();
            assertThat(st.errors()).isPositive();
            assertThat(st.joins()).isZero();
            assertThat(st.create().getTotalCount()).isZero();
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(5.0);
        }
    }

    @Test
    void countsARefusedConnectionAsAnError() throws Exception {
        java.net.InetSocketAddress nobody;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            nobody = new java.net.InetSocketAddress("127.0.0.1", s.getLocalPort());
        }
        LoadLoop.Stats st = LoadLoop.run(nobody, 1, 2, 1, new Ids(SECRET, 1)).stats();
        assertThat(st.errors()).isPositive();
        assertThat(st.joins()).isZero();
    }
}
