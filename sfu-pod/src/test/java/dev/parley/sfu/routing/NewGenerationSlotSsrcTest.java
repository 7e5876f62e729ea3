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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chaos finding 4: after "etcd down" a browser that took a new transport generation on the SAME SFU stopped
 * receiving the other's media for minutes. Its participant entry (and its subscribe slots) survived the old
 * transport, the new subscribe answer named fresh slot SSRCs, but the old slots were kept with their old SSRCs, so
 * the SFU forwarded on SSRCs the browser's new peer connection had never been told of (and drops). What the SFU
 * sends on a slot must be what the answer announced for its mid, on a renegotiation and on a new transport alike.
 */
class NewGenerationSlotSsrcTest {
    private static final Pattern SSRC = Pattern.compile("a=ssrc:(\\d+) ");
    private final Router router = new Router(new SfuMetrics(),
            new EventPublisher(new ObjectMapper(), new InternalAuth("slot-ssrc-test-secret-0123456789"), "sfu-test"));

    @BeforeEach
    void start() throws InterruptedException { router.start("127.0.0.1", "127.0.0.1", 0, 0); }

    @AfterEach
    void close() { router.close(); }

    private static Grant grant(String pid) {
        return new Grant(pid, 1, 7, new PublishRights(true, true, false), true, 3000);
    }

    private MeetingControl.TransportResult subscribe(long generation) {
        return router.call(() -> router.control().createTransport("m", "sub", generation, 7, false,
                AnswerBuilderTest.offer("recvonly", false), grant("sub"), null, List.of(), null));
    }

    /** The first a=ssrc of the answer's m-section with {@code mid}. */
    private static long announced(String answer, String mid) {
        for (String section : answer.split("\r\nm=")) {
            if (!section.contains("\r\na=mid:" + mid + "\r\n")) continue;
            Matcher m = SSRC.matcher(section);
            if (m.find()) return Long.parseLong(m.group(1));
        }
        throw new AssertionError("no a=ssrc for mid " + mid + " in\n" + answer);
    }

    private Slot videoSlot() {
        return router.call(() -> {
            for (Slot s : router.meetings().get("m").participants.get("sub").slots) if (s.video) return s;
            throw new AssertionError("no video slot");
        });
    }

    @Test
    void aSlotForwardsOnTheSsrcItsTransportsAnswerAnnounced() {
        router.call(() -> router.control().createTransport("m", "pub", 1, 7, true,
                AnswerBuilderTest.offer("sendonly", false), grant("pub"), null, List.of(), null));
        MeetingControl.TransportResult first = subscribe(1);
        Slot s1 = videoSlot();
        assertThat(s1.track).as("the publisher's camera is on the subscriber's video slot").isNotNull();
        assertThat(s1.ssrc & 0xFFFFFFFFL).isEqualTo(announced(first.answer(), s1.mid));

        MeetingControl.TransportResult again = subscribe(1);                    // renegotiation: same SSRCs
        assertThat(announced(again.answer(), s1.mid)).isEqualTo(s1.ssrc & 0xFFFFFFFFL);

        MeetingControl.TransportResult next = subscribe(2);                     // new generation, same SFU
        Slot s2 = videoSlot();
        assertThat(s2.ssrc & 0xFFFFFFFFL).as("slot SSRC vs the new answer's a=ssrc for mid " + s2.mid)
                .isEqualTo(announced(next.answer(), s2.mid));
        assertThat(s2.track).as("the camera is on the new slot").isNotNull();
        assertThat(next.slots()).anySatisfy(a -> assertThat(a.mid()).isEqualTo(s2.mid));
        assertThat(s1.track == null || s1 == s2).as("an old slot no longer takes the camera's packets").isTrue();
    }

    /**
     * The publisher's side of the same move (chaos quick run 12:16: the guest took a new generation on its SFU and the
     * host never received it again): the new publish offer's streams must be the ones the SFU knows and forwards, and
     * every subscriber's slot must carry the track as published now, not the old transport's.
     */
    @Test
    void aNewPublishTransportOnTheSameSfuPublishesItsOwnStreams() {
        router.call(() -> router.control().createTransport("m", "pub", 1, 7, true,
                AnswerBuilderTest.offer("sendonly", false), grant("pub"), null, List.of(), null));
        subscribe(1);
        String second = AnswerBuilderTest.offer("sendonly", false).replace("a=ssrc:5678 ", "a=ssrc:9999 ").replace("a=ssrc:1234 ", "a=ssrc:4321 ");
        router.call(() -> router.control().createTransport("m", "pub", 2, 7, true, second, grant("pub"), null, List.of(), null));
        router.call(() -> {
            Participant pub = router.meetings().get("m").participants.get("pub");
            PublishedTrack video = pub.tracksByMid.get("1");
            assertThat(pub.tracksByDeclaredSsrc.get(9999L)).as("the new offer's video SSRC is known").isSameAs(video);
            assertThat(pub.tracksByDeclaredSsrc).doesNotContainKey(5678L);
            Slot s = null;
            for (Slot x : router.meetings().get("m").participants.get("sub").slots) if (x.video) s = x;
            assertThat(s).isNotNull();
            assertThat(s.track).as("the subscriber's slot carries the track published now").isSameAs(video);
            return null;
        });
    }
}
