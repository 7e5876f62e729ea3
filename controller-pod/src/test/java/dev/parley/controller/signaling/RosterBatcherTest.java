package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.control.ControlEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The roster batcher: a window's joins and departures become one delta with the cursor range they stand for, any
 * other event goes out at once after what was held, and only consecutive events share a delta.
 */
class RosterBatcherTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final UUID meeting = UUID.randomUUID();
    /** What the sink got, in order: "run 3.4-3.9 {json}" or "events 3.5,3.6". */
    private final List<String> out = Collections.synchronizedList(new ArrayList<>());
    private final RosterBatcher batcher = new RosterBatcher(timers, new RosterBatcher.Sink() {
        @Override
        public void run(UUID m, List<ControlEvent> run, java.util.Map<String, dev.parley.controller.coalesce.RosterChange> changes, String delta) {
            out.add("run " + run.get(0).cursor() + "-" + run.get(run.size() - 1).cursor() + " " + delta);
        }

        @Override
        public void events(UUID m, List<ControlEvent> events) {
            out.add("events " + String.join(",", events.stream().map(ControlEvent::cursor).toList()));
        }
    });

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    @Test
    void aWindowOfJoinsAndDeparturesIsOneDeltaWithItsCursorRange() throws Exception {
        batcher.publish(meeting, List.of(joined(7, "p1", "Ari", "attendee", 1)));
        batcher.publish(meeting, List.of(joined(8, "p2", "Bo", "cohost", 3)));
        batcher.publish(meeting, List.of(left(9, "p1")));
        batcher.publish(meeting, List.of(joined(10, "p3", "Cy", "attendee", 1)));
        assertThat(out).as("held for the window").isEmpty();
        List<String> got = await(1);
        assertThat(got.get(0)).startsWith("run 1.7-1.10 ");
        JsonNode d = JSON.readTree(got.get(0).substring(got.get(0).indexOf('{')));
        assertThat(d.path("type").asText()).isEqualTo("roster_delta");
        assertThat(d.path("after").asText()).isEqualTo("1.6");
        assertThat(d.path("cursor").asText()).isEqualTo("1.10");
        // p1 joined and left within the window: one removal; usual values are left out (field order is free)
        assertThat(d.path("changes")).isEqualTo(JSON.readTree("[{\"participant_id\":\"p1\",\"op\":\"remove\",\"fields\":{\"reason\":\"left\"}},"
                + "{\"participant_id\":\"p2\",\"op\":\"replace\",\"fields\":{\"display_name\":\"Bo\",\"participant_version\":\"3\",\"role\":\"cohost\",\"publish\":\"audio,screen\"}},"
                + "{\"participant_id\":\"p3\",\"op\":\"replace\",\"fields\":{\"display_name\":\"Cy\",\"participant_version\":\"1\"}}]"));
    }

    @Test
    void anotherEventGoesOutAtOnceAfterWhatWasHeld() throws Exception {
        batcher.publish(meeting, List.of(joined(3, "p1", "Ari", "attendee", 1), joined(4, "p2", "Bo", "attendee", 1)));
        batcher.publish(meeting, List.of(event(5, "permission_changed"), joined(6, "p3", "Cy", "attendee", 1)));
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).startsWith("run 1.3-1.4 ");
        assertThat(out.get(1)).isEqualTo("events 1.5");
        assertThat(await(3).get(2)).startsWith("run 1.6-1.6 ");
    }

    @Test
    void onlyConsecutiveEventsShareADeltaAndPrivateOrWaitingOnesAreNotHeld() throws Exception {
        // commits can be published out of order: 12 before 11
        batcher.publish(meeting, List.of(joined(12, "p2", "Bo", "attendee", 1)));
        batcher.publish(meeting, List.of(joined(10, "p1", "Ari", "attendee", 1)));
        batcher.publish(meeting, List.of(joined(14, "p3", "Cy", "attendee", 1)));
        List<String> got = await(3);
        assertThat(got.stream().map(s -> s.substring(0, s.indexOf(" {"))).toList())
                .containsExactly("run 1.10-1.10", "run 1.12-1.12", "run 1.14-1.14");
        out.clear();
        ObjectNode waiting = joined(20, "w", "Wes", "attendee", 1).payload().deepCopy().put("admission_state", "waiting");
        batcher.publish(meeting, List.of(new ControlEvent(meeting, 1, 20, UUID.randomUUID(), "participant_joined", waiting, null)));
        batcher.publish(meeting, List.of(new ControlEvent(meeting, 1, 21, UUID.randomUUID(), "participant_joined",
                joined(21, "x", "X", "attendee", 1).payload(), UUID.randomUUID())));
        assertThat(out).containsExactly("events 1.20", "events 1.21");
    }

    @Test
    void aRunWaitsAWindowForALateEarlierCommitInsteadOfLeavingAGap() throws Exception {
        batcher.publish(meeting, List.of(joined(5, "p1", "Ari", "attendee", 1), joined(6, "p2", "Bo", "attendee", 1)));
        assertThat(await(1).get(0)).startsWith("run 1.5-1.6 ");
        // seq 7 commits first but is published after 8 and 9, later than one window
        batcher.publish(meeting, List.of(joined(8, "p4", "Di", "attendee", 1)));
        batcher.publish(meeting, List.of(joined(9, "p5", "Ed", "attendee", 1)));
        Thread.sleep(RosterBatcher.MAX_HOLE_WAITS * 100L - 50);
        assertThat(out).as("8 and 9 wait for 7").hasSize(1);
        batcher.publish(meeting, List.of(joined(7, "p3", "Cy", "attendee", 1)));
        assertThat(await(2).get(1)).startsWith("run 1.7-1.9 ");
    }

    @Test
    void aRunGoesAnywayWhenTheMissingEventNeverComes() throws Exception {
        batcher.publish(meeting, List.of(joined(5, "p1", "Ari", "attendee", 1)));
        await(1);
        batcher.publish(meeting, List.of(joined(7, "p3", "Cy", "attendee", 1)));
        List<String> got = await(2);
        assertThat(got.get(1)).startsWith("run 1.7-1.7 ");
    }

    private List<String> await(int n) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (out.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(out).hasSize(n);
        return List.copyOf(out);
    }

    private ControlEvent joined(long seq, String pid, String name, String role, long version) {
        ObjectNode p = JSON.createObjectNode().put("participant_id", pid).put("display_name", name).put("role", role)
                .put("admission_state", "admitted").put("participant_version", version);
        p.putObject("publish").put("audio", true).put("video", !"cohost".equals(role)).put("screen", true);
        return new ControlEvent(meeting, 1, seq, UUID.randomUUID(), "participant_joined", p, null);
    }

    private ControlEvent left(long seq, String pid) {
        ObjectNode p = JSON.createObjectNode().put("participant_id", pid).put("display_name", "x").put("reason", "left");
        return new ControlEvent(meeting, 1, seq, UUID.randomUUID(), "participant_left", p, null);
    }

    private ControlEvent event(long seq, String type) {
        return new ControlEvent(meeting, 1, seq, UUID.randomUUID(), type, JSON.createObjectNode().put("participant_id", "p1"), null);
    }
}
