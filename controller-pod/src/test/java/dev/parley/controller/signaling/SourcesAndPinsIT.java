package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.controller.testing.WsClient;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.TrackSubscription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The signaling socket relays a publish offer's {@code sources} and a subscription's {@code pinned} to the SFU
 * (real controller, PostgreSQL, etcd; the SFU side is the test double, which records what it receives), refuses
 * malformed ones with an {@code error} before anything reaches the SFU, and relays the SFU's
 * {@code track_published} with its {@code source} to the meeting.
 */
class SourcesAndPinsIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    /** The next {@code answer}, {@code subscribed} or {@code error} message. */
    private static JsonNode reply(WsClient ws) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(1, TimeUnit.SECONDS);
            if (n != null && List.of("answer", "subscribed", "error").contains(n.path("type").asText())) return n;
        }
        throw new AssertionError("no reply");
    }

    private static String offer(String sources) {
        return "{\"type\":\"offer\",\"transport\":\"publish\",\"sdp\":\"v=0\\r\\n\"" + (sources == null ? "" : ",\"sources\":" + sources) + "}";
    }

    @Test
    void sourcesAndPinsReachTheSfuAndMalformedOnesDoNot() throws Exception {
        TestSfuDouble sfu = h.sfus.get(0);
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        try (WsClient ws = s.joinedSocket(a, "src")) {
            int before = sfu.transportsCreated.get();
            for (String bad : List.of("[{\"mid\":\"2\",\"source\":\"window\"}]", "[{\"mid\":2,\"source\":\"screen\"}]",
                    "{\"2\":\"screen\"}", "[" + "{\"mid\":\"1\",\"source\":\"camera\"},".repeat(16) + "{\"mid\":\"2\",\"source\":\"screen\"}]")) {
                ws.send(offer(bad));
                JsonNode r = reply(ws);
                assertThat(r.path("type").asText()).as(bad).isEqualTo("error");
                assertThat(r.path("code").asText()).isEqualTo("invalid_sources");
            }
            assertThat(sfu.transportsCreated.get()).as("nothing reached the SFU").isEqualTo(before);

            ws.send(offer("[{\"mid\":\"0\",\"source\":\"microphone\",\"kind\":\"audio\"},{\"mid\":\"1\",\"source\":\"camera\",\"kind\":\"video\"},"
                    + "{\"mid\":\"2\",\"source\":\"screen\",\"kind\":\"video\"}]"));
            assertThat(reply(ws).path("type").asText()).isEqualTo("answer");
            CreateTransportRequest req = sfu.transportRequests.getLast();
            assertThat(req.participantId()).isEqualTo(a[1]);
            assertThat(req.sources()).containsExactly(new PublishSource("0", "microphone"), new PublishSource("1", "camera"),
                    new PublishSource("2", "screen"));

            ws.send(offer(null));
            assertThat(reply(ws).path("type").asText()).isEqualTo("answer");
            assertThat(sfu.transportRequests.getLast().sources()).as("no sources: the SFU keeps what it was told").isNull();

            int subs = sfu.subscriptionRequests.size();
            ws.send("{\"type\":\"subscribe\",\"tracks\":[{\"track_id\":\"x:1\",\"max_width\":640,\"max_height\":360,\"pinned\":\"yes\"}]}");
            JsonNode r = reply(ws);
            assertThat(r.path("type").asText()).isEqualTo("error");
            assertThat(r.path("code").asText()).isEqualTo("invalid_tracks");
            assertThat(sfu.subscriptionRequests).hasSize(subs);

            ws.send("{\"type\":\"subscribe\",\"tracks\":[{\"track_id\":\"x:1\",\"max_width\":640,\"max_height\":360,\"max_fps\":30,\"pinned\":true},"
                    + "{\"track_id\":\"y:1\",\"max_width\":320,\"max_height\":180}]}");
            assertThat(reply(ws).path("type").asText()).isEqualTo("subscribed");
            assertThat(sfu.subscriptionRequests.getLast().tracks()).containsExactly(
                    new TrackSubscription("x:1", 640, 360, 30, true), new TrackSubscription("y:1", 320, 180, 0, false));
        }
    }

    @Test
    void theSfusTrackPublishedCarriesItsSourceToTheMeeting() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0), b = s.admittedAttendee(0);
        try (WsClient wa = s.joinedSocket(a, "pa"); WsClient wb = s.joinedSocket(b, "pb")) {
            var r = h.call(0, "POST", "/internal/v1/sfu-events", ControllerHarness.INTERNAL_SECRET, null,
                    "{\"type\":\"track_published\",\"meeting_id\":\"" + s.meetingId + "\",\"participant_id\":\"" + a[1]
                            + "\",\"transport_generation\":1,\"sfu\":\"sfu-0\",\"data\":{\"track_id\":\"" + a[1] + ":2\","
                            + "\"kind\":\"video\",\"source\":\"screen\",\"simulcast_layers\":1}}");
            assertThat(r.status()).as(r.raw()).isEqualTo(204);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            JsonNode ev = null;
            while (ev == null && System.nanoTime() < deadline) {
                JsonNode n = wb.received.poll(1, TimeUnit.SECONDS);
                if (n != null && "track_published".equals(n.path("event").path("type").asText())) ev = n.get("event");
            }
            assertThat(ev).as("track_published at the other participant").isNotNull();
            assertThat(ev.path("track_id").asText()).isEqualTo(a[1] + ":2");
            assertThat(ev.path("source").asText()).isEqualTo("screen");
            assertThat(ev.path("kind").asText()).isEqualTo("video");
        }
    }
}
