package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.metrics.SfuMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A keyframe request held back by the coalescer keeps its publisher stream's layer until it goes out. When a keyframe
 * satisfies it first, or the stream is unpublished, nothing may stay behind: the layer holds its publisher, meeting and
 * packet caches (a soak found an SFU holding 12 participants while carrying 3).
 */
class DeferredKeyframeRequestTest {
    private final Router router = new Router(new SfuMetrics(),
            new EventPublisher(new ObjectMapper(), new InternalAuth("deferred-pli-test-secret-0123"), "sfu-test"));
    private final Meeting meeting = new Meeting("m");

    @AfterEach
    void close() { router.close(); }

    private Layer videoLayer(String owner, int ssrc) {
        Participant p = new Participant(owner, meeting);
        meeting.participants.put(owner, p);
        PublishedTrack t = new PublishedTrack(p, "1", true, "vp8", 96, 97, 90000, List.of(), 0);
        p.tracksByMid.put("1", t);
        t.layers[0].ssrc = ssrc;
        return t.layers[0];
    }

    @Test
    void aKeyframeThatSatisfiesADeferredRequestReleasesItsLayer() {
        Layer l = videoLayer("pub", 1234);
        long now = 5_000_000_000L;
        router.rtcp.requestKeyframe(l, now, false);                 // goes out (no transport here: nothing is sent)
        router.rtcp.requestKeyframe(l, now + 10_000_000L, false);   // within the interval: deferred
        assertThat(router.rtcp.deferredRequests()).isEqualTo(1);
        router.rtcp.onKeyframe(1234);                                // the keyframe came anyway
        assertThat(router.rtcp.deferredRequests()).isZero();
        router.rtcp.sendDeferredKeyframeRequests(now + 1_000_000_000L);
        assertThat(router.rtcp.deferredRequests()).isZero();
    }

    @Test
    void anUnpublishedStreamLeavesNoDeferredRequest() {
        Layer l = videoLayer("gone", 777);
        long now = 5_000_000_000L;
        router.rtcp.requestKeyframe(l, now, false);
        router.rtcp.requestKeyframe(l, now + 10_000_000L, false);
        assertThat(router.rtcp.deferredRequests()).isEqualTo(1);
        Participant p = meeting.participants.get("gone");
        router.control().unpublish(p, p.tracksByMid.get("1"), null, 1);
        assertThat(router.rtcp.deferredRequests()).isZero();
    }
}
