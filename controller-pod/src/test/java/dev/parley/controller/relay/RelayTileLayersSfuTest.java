package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.relay.RelayLab;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only the layers the receiving SFU's tiles need cross a relay (issue #17: "only subscribed layers cross a relay"),
 * on two real SFU servers (bench's {@link RelayLab}): a three-layer simulcast publisher on A, a subscriber on B, one
 * relay A → B listing all three layers (the ceiling the owner plans). B's subscriber shows the track in a 320×180 tile:
 * within a few seconds only layer 0 crosses (A's relay counters, B's too); the tile grows to 1280×720: layer 2
 * crosses again. Fails without the receiver's tile report: every listed layer crosses whatever B shows.
 */
@Timeout(120)
class RelayTileLayersSfuTest {
    private static final String MEETING = "m-tiles";

    @Test
    void onlyTheLayersTheReceiversTileNeedsCrossTheRelay() throws Exception {
        try (RelayLab lab = new RelayLab()) {
            Publisher pub = lab.publish(lab.a, MEETING, "pub");
            RelayLab.Receiver sub = lab.subscribe(lab.b, MEETING, "sub", 1, new Recorder(3));
            Thread driver = lab.drive(List.of(pub), List.of(sub.subscriber()));
            try {
                lab.relay("r-tiles", MEETING, lab.a, lab.b, List.of(new RelayLab.TrackLayers("pub:1", "video", 3, List.of(0, 1, 2))));
                waitFor(() -> sub.video().get() > 60, 15_000, "video at B's subscriber");
                waitFor(() -> window(lab, 1000)[2] > 0, 10_000, "all three layers crossing before any tile is known small");

                tile(lab, 320, 180);
                long[][] last = new long[1][];
                waitFor(() -> {
                    long[] d = window(lab, 2000);
                    last[0] = d;
                    return d[0] > 0 && d[1] == 0 && d[2] == 0;
                }, 20_000, "only layer 0 crossing for a 320x180 tile");
                long[] in = inWindow(lab, 2000);
                System.out.printf("tile 320x180: packets per layer in 2 s, A out %s, B in %s%n", java.util.Arrays.toString(last[0]),
                        java.util.Arrays.toString(in));
                assertThat(in[1] + in[2]).as("B receives no higher layer").isZero();
                long v = sub.video().get();
                Thread.sleep(1000);
                assertThat(sub.video().get()).as("B's subscriber still gets video (layer 0)").isGreaterThan(v);

                tile(lab, 1280, 720);
                waitFor(() -> {
                    long[] d = window(lab, 1000);
                    last[0] = d;
                    return d[2] > 0;
                }, 15_000, "layer 2 crossing again for a 1280x720 tile");
                System.out.printf("tile 1280x720: packets per layer in 1 s, A out %s%n", java.util.Arrays.toString(last[0]));
            } finally {
                driver.interrupt();
                pub.transport.close();
                sub.subscriber().transport.close();
            }
        }
    }

    /** B's subscriber shows the relayed video in a {@code w} × {@code h} tile (the SFU subscription update). */
    private static void tile(RelayLab lab, int w, int h) {
        ObjectNode body = RelayTestKit.JSON.createObjectNode().put("controller_epoch", RelayLab.EPOCH);
        body.putArray("tracks").addObject().put("track_id", "pub:1").put("max_width", w).put("max_height", h).put("max_fps", 30);
        lab.call(lab.b, "PUT", "/internal/v1/meetings/" + MEETING + "/participants/sub/subscriptions", body, 200);
    }

    /** Packets per layer A sent on the relay over {@code ms}. */
    private static long[] window(RelayLab lab, long ms) {
        long[] a = layers(lab.state(lab.a), "out");
        sleep(ms);
        return minus(layers(lab.state(lab.a), "out"), a);
    }

    private static long[] inWindow(RelayLab lab, long ms) {
        long[] a = layers(lab.state(lab.b), "in");
        sleep(ms);
        return minus(layers(lab.state(lab.b), "in"), a);
    }

    private static long[] layers(JsonNode state, String direction) {
        long[] out = new long[3];
        for (JsonNode r : state.path("relays")) {
            if (!direction.equals(r.path("direction").asText())) continue;
            for (JsonNode t : r.path("tracks")) {
                if (!"pub:1".equals(t.path("track_id").asText())) continue;
                for (int i = 0; i < t.path("layers").size(); i++) out[t.path("layers").get(i).asInt()] = t.path("layer_packets").get(i).asLong();
            }
        }
        return out;
    }

    private static long[] minus(long[] b, long[] a) {
        long[] d = new long[3];
        for (int i = 0; i < 3; i++) d[i] = b[i] - a[i];
        return d;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier c, long ms, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (!c.getAsBoolean()) {
            if (System.currentTimeMillis() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(50);
        }
    }
}
