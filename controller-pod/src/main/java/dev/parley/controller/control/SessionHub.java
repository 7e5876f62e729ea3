package dev.parley.controller.control;

import java.util.List;
import java.util.UUID;

/** Delivery of committed control events (and volatile hints) to the meeting's signaling sockets. */
public interface SessionHub {
    void publish(UUID meetingId, List<ControlEvent> events);

    /** A hint that is not part of the durable log (may be lost; clients recover via snapshot). */
    void volatileMessage(UUID meetingId, String type, String detail);

    void closeMeeting(UUID meetingId);

    /**
     * A volatile event (latest wins, may be lost) with its fields, to every socket of the meeting. The
     * {@code event} object is sent as the message's {@code event} (with {@code volatile: true} added).
     */
    void volatileEvent(UUID meetingId, com.fasterxml.jackson.databind.node.ObjectNode event);

    /** The same, only to the sockets of one participant (an SFU event about that participant's own media). */
    void volatileEventTo(UUID meetingId, String participantId, com.fasterxml.jackson.databind.node.ObjectNode event);
}
