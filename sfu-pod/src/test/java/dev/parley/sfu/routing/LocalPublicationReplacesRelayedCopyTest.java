package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.signaling.AnswerBuilderTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A publisher moving onto an SFU that already gets its track by relay (its origin SFU drained; the owner fed this SFU
 * for a receiver that moved first): its own connection's publication of the same track must replace the relayed
 * copy, and the relay's end must not take the track with it. Before, the publication was dropped ("old != null")
 * and the track vanished when the relay was deleted (controller-pod OriginDrainIT: relays/out here answered 400, then
 * 404 unknown_track).
 */
class LocalPublicationReplacesRelayedCopyTest {
    private final Router router = new Router(new SfuMetrics(),
            new EventPublisher(new ObjectMapper(), new InternalAuth("relayed-copy-test-secret-0123456789"), "sfu-test"));

    @BeforeEach
    void start() throws InterruptedException { router.start("127.0.0.1", "127.0.0.1", 0, 0); }

    @AfterEach
    void close() { router.close(); }

    private static Grant grant(String pid) {
        return new Grant(pid, 1, 7, new PublishRights(true, true, false), true, 3000);
    }

    @Test
    void thePublishersOwnConnectionReplacesTheRelayedCopyAndOutlivesTheRelay() {
        router.call(() -> router.control().createTransport("m", "sub", 1, 7, false,
                AnswerBuilderTest.offer("recvonly", false), grant("sub"), null, List.of(), null));
        Upstream relay = new Upstream() {
            @Override public boolean forwarding(long now) { return true; }
            @Override public void requestKeyframe(int layerIndex, long now) { }
        };
        TrackHandle copy = router.call(() -> router.control().publishRelayed("m", "pub:1", true, "VP8", 96, 90000, 1, 0, relay));
        assertThat(router.call(() -> router.control().track("m", "pub:1").relayed())).isTrue();

        router.call(() -> router.control().createTransport("m", "pub", 2, 7, true,
                AnswerBuilderTest.offer("sendonly", false), grant("pub"), null, List.of(), null));
        assertThat(router.call(() -> router.control().track("m", "pub:1")))
                .as("the publisher's own track is published here").isNotNull()
                .satisfies(h -> assertThat(h.relayed()).as("by its connection, not the relay").isFalse());

        router.call(() -> { router.control().unpublishRelayed(copy); return null; }); // the relay is deleted
        assertThat(router.call(() -> router.control().track("m", "pub:1"))).as("the track outlives the relay").isNotNull();
        Slot video = router.call(() -> {
            for (Slot s : router.meetings().get("m").participants.get("sub").slots) if (s.video) return s;
            throw new AssertionError("no video slot");
        });
        assertThat(video.track).as("the subscriber's video slot carries the publisher's own track").isNotNull();
        assertThat(video.track.upstream).isNull();
    }
}
