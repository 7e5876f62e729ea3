package dev.parley.sfu.api;

import org.slf4j.MDC;

/**
 * The MDC of one internal API request (docs/configuration.md, "Logs"): put once the body is parsed, removed by
 * {@link InternalApi} when the request ends, whatever the outcome, since HttpServer may run the next request on the
 * same thread. Only the request's own handler thread carries it; the media thread (the per-packet path) never does.
 */
final class ApiMdc {
    static final String MEETING_ID = "meeting_id";
    static final String PARTICIPANT_ID = "participant_id";
    static final String CONTROLLER_EPOCH = "controller_epoch";

    private ApiMdc() {
    }

    /** Null arguments are left out; the ids come from the controller, behind the internal secret. */
    static void put(String meetingId, String participantId, long controllerEpoch) {
        if (meetingId != null) MDC.put(MEETING_ID, meetingId);
        if (participantId != null) MDC.put(PARTICIPANT_ID, participantId);
        MDC.put(CONTROLLER_EPOCH, Long.toString(controllerEpoch));
    }

    static void clear() {
        MDC.remove(MEETING_ID);
        MDC.remove(PARTICIPANT_ID);
        MDC.remove(CONTROLLER_EPOCH);
    }
}
