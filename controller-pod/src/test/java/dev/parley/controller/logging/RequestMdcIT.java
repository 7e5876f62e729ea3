package dev.parley.controller.logging;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.JsonLogCapture;
import dev.parley.controller.signaling.SignalingSocket;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micronaut.inject.qualifiers.Qualifiers;
import io.micronaut.scheduling.TaskExecutors;
import org.slf4j.MDC;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A join through the REST API with JSON logs: the join's log line carries meeting_id, participant_id,
 * controller_epoch and pod as top-level fields (issue #21), and none of it stays on the threads afterwards; a
 * signaling socket's join line carries its meeting, participant and owner epoch.
 */
class RequestMdcIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    @Test
    void aJoinLogsItsMeetingParticipantEpochAndPod() throws Exception {
        Scenario s = new Scenario(h);
        List<JsonNode> lines;
        try (JsonLogCapture logs = new JsonLogCapture()) {
            s.meeting(false);
            lines = logs.lines();
        }
        String epoch = h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + s.meetingId + "'");
        List<JsonNode> join = lines.stream()
                .filter(l -> s.hostPid.equals(l.path("participant_id").asText()))
                .filter(l -> l.path("message").asText().contains("joined")).toList();
        assertThat(join).as("the join's log line among %s", lines).isNotEmpty();
        JsonNode line = join.get(0);
        assertThat(line.path("meeting_id").asText()).isEqualTo(s.meetingId);
        assertThat(line.path("controller_epoch").asText()).isEqualTo(epoch);
        assertThat(line.path("pod").asText()).isEqualTo("controller-0");
        assertThat(line.path("level").asText()).isEqualTo("INFO");
        assertThat(line.path("logger").asText()).isEqualTo(JoinLog.class.getName());
    }

    @Test
    void aSignalingJoinLogsItsMeetingParticipantAndEpoch() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] attendee = s.admittedAttendee(0);
        List<JsonNode> lines;
        try (JsonLogCapture logs = new JsonLogCapture(); WsClient ws = s.joinedSocket(attendee, "mdc-signaling")) {
            ws.send("{\"type\":\"ping\"}");
            ws.await("pong", 10_000);
            lines = logs.lines();
        }
        String epoch = h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + s.meetingId + "'");
        List<JsonNode> joined = lines.stream()
                .filter(l -> l.path("logger").asText().equals(SignalingSocket.class.getName()))
                .filter(l -> l.path("message").asText().startsWith("signaling socket joined")).toList();
        assertThat(joined).as("the signaling join's line among %s", lines).hasSize(1);
        assertThat(joined.get(0).path("meeting_id").asText()).isEqualTo(s.meetingId);
        assertThat(joined.get(0).path("participant_id").asText()).isEqualTo(attendee[1]);
        assertThat(joined.get(0).path("controller_epoch").asText()).isEqualTo(epoch);
    }

    @Test
    void theRequestMdcIsGoneFromTheThreadsAfterwards() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        s.admittedAttendee(0);
        ExecutorService blocking = h.controllers.get(0).getBean(ExecutorService.class, Qualifiers.byName(TaskExecutors.BLOCKING));
        List<Future<Map<String, String>>> seen = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            seen.add(blocking.submit(MDC::getCopyOfContextMap));
        }
        for (Future<Map<String, String>> f : seen) {
            Map<String, String> mdc = f.get(10, TimeUnit.SECONDS);
            assertThat(mdc == null ? Map.of() : mdc).as("MDC left on a blocking thread").isEmpty();
        }
    }
}
