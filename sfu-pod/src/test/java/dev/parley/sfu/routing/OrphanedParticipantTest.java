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
 * A participant whose removal (or its meeting's end) never reached this SFU — the SFU or the controller was down
 * when it happened — must not stay for the life of the process: once it has no transport here and no live grant
 * for the grace, the SFU forgets it, and then the meeting (bench/chaos: `sfu meetings` 3 after cleanup).
 */
class OrphanedParticipantTest {
    private static final long GRACE = 20_000_000_000L;                  // MeetingControl.ORPHAN_GRACE_NANOS (docs/sfu.md)
    private final Router router = new Router(new SfuMetrics(),
            new EventPublisher(new ObjectMapper(), new InternalAuth("orphaned-participant-test-secret-0123"), "sfu-test"));

    @BeforeEach
    void start() throws InterruptedException { router.start("127.0.0.1", "127.0.0.1", 0, 0); }

    @AfterEach
    void close() { router.close(); }

    private static Grant grant(String pid, long ttlMs) {
        return new Grant(pid, 1, 7, new PublishRights(true, true, false), true, ttlMs);
    }

    /** A publish and a subscribe transport for {@code pid} (real offers), then both closed as a consent timeout does. */
    private void joinThenLoseTransports(String meeting, String pid) {
        router.call(() -> router.control().createTransport(meeting, pid, 1, 7, true,
                AnswerBuilderTest.offer("sendonly", false), grant(pid, 1000), null, List.of(), null));
        router.call(() -> router.control().createTransport(meeting, pid, 1, 7, false,
                AnswerBuilderTest.offer("recvonly", false), null, null, List.of(), null));
        router.call(() -> {
            Participant p = router.meetings().get(meeting).participants.get(pid);
            router.control().closeTransport(p.publish, null);
            router.control().closeTransport(p.subscribe, null);
            return null;
        });
    }

    private int forget(long now) { return router.call(() -> router.control().forgetIdleMeetings(now)); }

    @Test
    void aParticipantWithNoTransportAndNoLiveGrantIsForgottenAfterTheGrace() {
        joinThenLoseTransports("m1", "gone-a");
        joinThenLoseTransports("m1", "gone-b");
        long now = System.nanoTime() + 1_100_000_000L;                                      // both grants ran out
        assertThat(forget(now)).isZero();                                                    // the grace starts
        assertThat(router.meetings().get("m1").participants).containsOnlyKeys("gone-a", "gone-b");
        assertThat(forget(now + GRACE - 1_000_000_000L)).isZero();                           // still within it
        assertThat(forget(now + GRACE)).isEqualTo(1);
        assertThat(router.meetings()).doesNotContainKey("m1");
        assertThat(router.transports()).isZero();
    }

    @Test
    void aLiveGrantOrATransportKeepsAParticipant() {
        joinThenLoseTransports("m2", "between-transports");
        router.call(() -> router.control().createTransport("m2", "connected", 1, 7, false,
                AnswerBuilderTest.offer("recvonly", false), grant("connected", 1000), null, List.of(), null));
        long now = System.nanoTime();
        router.call(() -> router.control().putGrants("m2", 7, List.of(grant("between-transports", 3000))));
        assertThat(forget(now)).isZero();
        assertThat(forget(now + 2_000_000_000L)).isZero();                                   // grant live: it may come back
        long later = now + 3_100_000_000L;                                                   // grant ran out: grace starts
        assertThat(forget(later)).isZero();
        assertThat(forget(later + GRACE)).isZero();                                          // "connected" keeps the meeting
        assertThat(router.meetings().get("m2").participants).containsOnlyKeys("connected"); // its grant long expired: lease in doubt
    }
}
