package dev.parley.controller.signaling;

import dev.parley.controller.logging.RequestMdc;
import org.slf4j.MDC;

import java.util.UUID;

/**
 * The MDC of a joined socket's task (docs/configuration.md, "Logs"): its meeting, participant and the owner epoch
 * it was accepted under. Set by {@link SignalingSocket} around each task on the socket's serial executor and removed
 * after it, because the executor's threads run other sockets' tasks next. A few puts per message, nothing more.
 */
final class SocketMdc {
    private SocketMdc() {
    }

    /** Puts the socket's ids when it has joined; an unjoined socket adds nothing. */
    static void put(Conn c) {
        UUID meeting = c.meetingId;
        UUID participant = c.participantId;
        if (meeting == null || participant == null) {
            return;
        }
        MDC.put(RequestMdc.MEETING_ID, meeting.toString());
        MDC.put(RequestMdc.PARTICIPANT_ID, participant.toString());
        long epoch = c.epoch;
        if (epoch > 0) {
            MDC.put(RequestMdc.CONTROLLER_EPOCH, Long.toString(epoch));
        }
    }

    static void clear() {
        MDC.remove(RequestMdc.MEETING_ID);
        MDC.remove(RequestMdc.PARTICIPANT_ID);
        MDC.remove(RequestMdc.CONTROLLER_EPOCH);
    }
}
