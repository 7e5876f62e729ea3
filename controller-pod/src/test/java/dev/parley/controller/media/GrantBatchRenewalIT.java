package dev.parley.controller.media;

import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Grant renewals go to each SFU as ONE {@code PUT /grants/batch} per round carrying every meeting we own there
 * (not one request per meeting), each meeting still fenced on its own epoch; an SFU without the batch path
 * (404, an older version) is renewed one meeting at a time. The SFU is the test double of the grants contract.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GrantBatchRenewalIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");
    static TestSfuDouble sfu;

    @BeforeAll
    static void up() throws Exception {
        sfu = h.sfus.get(0);
    }

    /** A meeting whose attendee holds a transport (so the SFU holds a grant to renew); returns {meeting, pid}. */
    private static String[] meetingWithTransport() {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        var t = s.transport(0, a[0], a[1], 0, "t-" + UUID.randomUUID());
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> sfu.held(s.meetingId, a[1]) != null);
        return new String[]{s.meetingId, a[1]};
    }

    @Test
    @Order(1)
    void renewalsAreOneBatchPerSfuCarryingEveryMeeting() {
        List<String[]> ms = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ms.add(meetingWithTransport());
        }
        int singles = sfu.grantPuts.get();
        int batches = sfu.batchPuts.get();
        int entries = sfu.batchMeetings.get();
        long start = System.nanoTime();
        // grants live at most 3 s: still valid 4 s later means renewed, and only through batches
        await().atMost(Duration.ofSeconds(20)).until(() -> System.nanoTime() - start > Duration.ofSeconds(4).toNanos()
                && sfu.batchPuts.get() - batches >= 3);
        for (String[] m : ms) {
            assertThat(sfu.held(m[0], m[1]).valid()).as("grant of %s renewed", m[0]).isTrue();
        }
        int batchDelta = sfu.batchPuts.get() - batches;
        assertThat(sfu.grantPuts.get()).as("no per-meeting renewal requests").isEqualTo(singles);
        // every round's one request carried (at least) all three meetings
        assertThat(sfu.batchMeetings.get() - entries).isGreaterThanOrEqualTo(3 * (batchDelta - 1));
    }

    @Test
    @Order(2)
    void aStaleEpochInsideABatchLosesOnlyThatMeeting() {
        String[] stale = meetingWithTransport();
        String[] fine = meetingWithTransport();
        Ownership ownership = h.controllers.get(0).getBean(Ownership.class);
        long epoch = ownership.epochIfOwned(UUID.fromString(stale[0]));
        int singles = sfu.grantPuts.get();
        // a newer owner reached the SFU for one meeting: our next batch entry for it must be refused
        sfu.highestEpoch.put(stale[0], epoch + 1000);
        await().atMost(Duration.ofSeconds(10)).until(() -> ownership.epochIfOwned(UUID.fromString(stale[0])) == null);
        assertThat(sfu.refusedEpochs).contains(epoch);
        assertThat(sfu.grantPuts.get()).as("refused through the batch path").isEqualTo(singles);
        // the other meeting of the same batches is still ours and still renewed
        assertThat(ownership.epochIfOwned(UUID.fromString(fine[0]))).isNotNull();
        long expiry = sfu.held(fine[0], fine[1]).expiresAtNanos();
        await().atMost(Duration.ofSeconds(10)).until(() -> sfu.held(fine[0], fine[1]).expiresAtNanos() > expiry);
    }

    @Test
    @Order(3)
    void anSfuWithoutTheBatchPathIsRenewedOneMeetingAtATime() {
        sfu.batchEndpoint(false);
        try {
            String[] m = meetingWithTransport();
            int singles = sfu.grantPuts.get();
            long start = System.nanoTime();
            await().atMost(Duration.ofSeconds(20)).until(() -> System.nanoTime() - start > Duration.ofSeconds(4).toNanos()
                    && sfu.grantPuts.get() - singles >= 3);
            assertThat(sfu.held(m[0], m[1]).valid()).as("renewed through PUT /grants").isTrue();
        } finally {
            sfu.batchEndpoint(true);
        }
    }
}
