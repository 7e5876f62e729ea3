package dev.parley.controller.enforcement;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.SessionHub;
import dev.parley.controller.participant.ParticipantRow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** committed → applied bookkeeping alone: a command is written applied once, when the view shows it enforced. */
class EnforcementTest {
    private final UUID meeting = UUID.randomUUID();
    private final UUID pid = UUID.randomUUID();
    private final List<UUID> applied = new CopyOnWriteArrayList<>();
    private final Set<UUID> closed = ConcurrentHashMap.newKeySet();
    private final Enforcement enforcement = new Enforcement((m, epoch, cmd, ends) -> {
        applied.add(cmd);
        return List.of();
    }, new Hub(), new SimpleMeterRegistry());

    @AfterEach
    void stop() {
        enforcement.stop();
    }

    private record Change(UUID commandId, Map<UUID, Long> grantTargets, boolean pending, boolean endsMeeting)
            implements CommittedChange {
        @Override
        public List<ParticipantRow> changed() {
            return List.of();
        }

        @Override
        public boolean replay() {
            return false;
        }
    }

    @Test
    void appliedOnlyOnceEnforcedAndOnlyOnce() {
        enforcement.acquired(meeting, 3);
        UUID cmd = UUID.randomUUID();
        enforcement.track(meeting, new Change(cmd, Map.of(pid, 5L), true, true));
        enforcement.check(meeting, 3, (p, v, now) -> false);
        assertThat(enforcement.isPending(meeting, cmd)).isTrue();
        enforcement.check(meeting, 3, (p, v, now) -> p.equals(pid) && v == 5L);
        await().until(() -> !enforcement.isPending(meeting, cmd));
        enforcement.check(meeting, 3, (p, v, now) -> true);
        assertThat(applied).containsExactly(cmd);
        assertThat(closed).containsExactly(meeting);
    }

    @Test
    void aViewOfAnotherEpochDecidesNothing() {
        enforcement.acquired(meeting, 4);
        UUID cmd = UUID.randomUUID();
        enforcement.inherit(meeting, cmd, false, Map.of(pid, 1L));
        enforcement.check(meeting, 3, (p, v, now) -> true);
        assertThat(enforcement.isPending(meeting, cmd)).isTrue();
        enforcement.lost(meeting);
        assertThat(enforcement.isPending(meeting, cmd)).isFalse();
        assertThat(applied).isEmpty();
    }

    @Test
    void notPendingOrNotOwnedIsNotTracked() {
        UUID cmd = UUID.randomUUID();
        enforcement.track(meeting, new Change(cmd, Map.of(pid, 1L), true, false)); // not owned
        enforcement.acquired(meeting, 1);
        enforcement.track(meeting, new Change(UUID.randomUUID(), Map.of(pid, 1L), false, false));
        assertThat(enforcement.isPending(meeting, cmd)).isFalse();
    }

    private final class Hub implements SessionHub {
        @Override
        public void publish(UUID meetingId, List<ControlEvent> events) {
        }

        @Override
        public void volatileMessage(UUID meetingId, String type, String detail) {
        }

        @Override
        public void closeMeeting(UUID meetingId) {
            closed.add(meetingId);
        }

        @Override
        public void volatileEvent(UUID meetingId, ObjectNode event) {
        }

        @Override
        public void volatileEventTo(UUID meetingId, String participantId, ObjectNode event) {
        }
    }
}
