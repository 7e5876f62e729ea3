package dev.parley.sfu.routing;

import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.metrics.SfuMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A grant batch names a meeting before (or after) anyone has a transport here; such a meeting must not stay forever. */
class IdleMeetingTest {
    private final Router router = new Router(new SfuMetrics(),
            new EventPublisher(new ObjectMapper(), new InternalAuth("idle-meeting-test-secret-0123"), "sfu-test"));

    @AfterEach
    void close() { router.close(); }

    private static Grant grant(String pid, long ttlMs) {
        return new Grant(pid, 1, 7, new PublishRights(true, true, false), true, ttlMs);
    }

    @Test
    void aMeetingOnlyGrantsNamedIsForgottenOnceTheGrantsRunOut() {
        router.control().putGrants("m1", 7, List.of(grant("late", 1000)));
        long now = System.nanoTime();
        assertThat(router.control().forgetIdleMeetings(now)).isZero();                    // the grant is live: a transport may come
        assertThat(router.meetings()).containsKey("m1");
        assertThat(router.control().forgetIdleMeetings(now + 1_100_000_000L)).isEqualTo(1);
        assertThat(router.meetings()).doesNotContainKey("m1");
    }

    @Test
    void aRevocationAfterTheLastDepartureLeavesNothingBehind() {
        router.control().putGrants("m2", 7, List.of(Grant.revoked("gone", 9, 7, 3000)));
        assertThat(router.control().forgetIdleMeetings(System.nanoTime() + 3_100_000_000L)).isEqualTo(1);
        assertThat(router.meetings()).isEmpty();
    }
}
