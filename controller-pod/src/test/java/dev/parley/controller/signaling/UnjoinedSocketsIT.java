package dev.parley.controller.signaling;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A signaling socket must join within a bound counted from its opening, however busy it keeps the connection, and
 * one source address may hold only so many sockets that have not joined (docs/api.md, close codes 4408 and 4429).
 * Controller 0 has a 4 s join bound; controller 1 a long one and room for 3 unjoined sockets per address.
 */
class UnjoinedSocketsIT {
    static final long JOIN_TIMEOUT_MS = 4000;
    static final int CAP = 3;

    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1);

    @BeforeAll
    static void up() throws Exception {
        h.startController("controller-0", Map.of("PARLEY_SIGNALING_JOIN_TIMEOUT_MILLIS", String.valueOf(JOIN_TIMEOUT_MS)));
        h.startController("controller-1", Map.of("PARLEY_SIGNALING_JOIN_TIMEOUT_MILLIS", "120000",
                "PARLEY_SIGNALING_MAX_UNJOINED_PER_SOURCE", String.valueOf(CAP)));
    }

    private static String ws(int controller) {
        return h.configs.get(controller).signalingEndpoint();
    }

    @Test
    void aSocketThatNeverJoinsIsClosedAfterTheBoundEvenWhileItTalks() throws Exception {
        try (WsClient ws = new WsClient(ws(0))) {
            long opened = System.nanoTime();
            // pings and garbage every second: each is answered, none is a join
            for (int i = 0; i < 15 && !ws.isClosed(); i++) {
                ws.send(i % 2 == 0 ? "{\"type\":\"ping\"}" : "{\"type\":\"dance\"}");
                if (ws.awaitClose(1000)) {
                    break;
                }
            }
            long closedAfterMs = (System.nanoTime() - opened) / 1_000_000;
            assertThat(ws.isClosed()).as("closed within 15 s of talking without a join").isTrue();
            assertThat(ws.closeCode()).isEqualTo(4408);
            assertThat(ws.closeReason()).isEqualTo("join_timeout");
            assertThat(closedAfterMs).as("closed after (ms)").isBetween(JOIN_TIMEOUT_MS - 500, JOIN_TIMEOUT_MS + 2500);
            assertThat(ws.received.stream().anyMatch(n -> "pong".equals(n.path("type").asText())))
                    .as("the socket was served until then").isTrue();
        }
    }

    @Test
    void oneSourceMayHoldOnlySoManyUnjoinedSocketsAndJoinedOnesDoNotCount() throws Exception {
        Scenario s = new Scenario(h).meeting(false, 1);
        List<WsClient> open = new ArrayList<>();
        try {
            // two joined sockets from this address first: they take no unjoined slot
            for (int i = 0; i < 2; i++) {
                String[] a = s.admittedAttendee(1);
                var t = s.transport(1, a[0], a[1], 0, "cap-t-" + i);
                assertThat(t.status()).as(t.raw()).isEqualTo(200);
                WsClient joined = new WsClient(ws(1));
                open.add(joined);
                joined.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
                joined.await("joined", 10_000);
            }
            List<WsClient> unjoined = new ArrayList<>();
            for (int i = 0; i < CAP; i++) {
                WsClient u = new WsClient(ws(1));
                open.add(u);
                unjoined.add(u);
                u.send("{\"type\":\"ping\"}");
                u.await("pong", 5000);
            }
            // the (cap+1)th unjoined socket from this address is refused with a clear code
            WsClient refused = new WsClient(ws(1));
            open.add(refused);
            assertThat(refused.awaitClose(5000)).as("refused").isTrue();
            assertThat(refused.closeCode()).isEqualTo(4429);
            assertThat(refused.closeReason()).isEqualTo("too_many_unjoined");
            for (WsClient u : unjoined) {
                u.send("{\"type\":\"ping\"}");
                u.await("pong", 5000);
                assertThat(u.isClosed()).isFalse();
            }
            // an unjoined socket that goes frees its slot
            unjoined.get(0).close();
            WsClient next = awaitAccepted(ws(1));
            open.add(next);
            // and one that joins frees its slot too
            String[] a = s.admittedAttendee(1);
            var t = s.transport(1, a[0], a[1], 0, "cap-t-join");
            unjoined.get(1).send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
            unjoined.get(1).await("joined", 10_000);
            open.add(awaitAccepted(ws(1)));
            WsClient again = new WsClient(ws(1));
            open.add(again);
            assertThat(again.awaitClose(5000)).as("full again").isTrue();
            assertThat(again.closeCode()).isEqualTo(4429);
        } finally {
            for (WsClient c : open) {
                c.close();
            }
        }
    }

    /** A new socket that is served (a slot may take a moment to be released after a close). */
    private static WsClient awaitAccepted(String url) throws Exception {
        for (int attempt = 0; ; attempt++) {
            WsClient c = new WsClient(url);
            c.send("{\"type\":\"ping\"}");
            try {
                c.await("pong", 3000);
                if (!c.isClosed()) {
                    return c;
                }
            } catch (AssertionError e) {
                if (attempt >= 5) {
                    throw e;
                }
            }
            c.close();
            Thread.sleep(200);
        }
    }
}
