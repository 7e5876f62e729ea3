package dev.parley.controller.logging;

import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one control-path line of a join, carrying the new participant's id in the MDC (never a token). */
public final class JoinLog {
    private static final Logger LOG = LoggerFactory.getLogger(JoinLog.class);

    private JoinLog() {
    }

    public static void joined(JsonNode answer, boolean replay) {
        RequestMdc.participant(answer.path("participant_id").asText(null));
        LOG.info("participant {}: {}", replay ? "join replayed" : "joined", answer.path("admission_state").asText("?"));
    }
}
