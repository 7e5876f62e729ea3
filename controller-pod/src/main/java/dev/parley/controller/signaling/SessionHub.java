package dev.parley.controller.signaling;

import dev.parley.controller.control.ControlEvent;

import java.util.List;
import java.util.UUID;

/** Delivery of committed control events (and volatile hints) to the meeting's signaling sockets. */
public interface SessionHub {
    void publish(UUID meetingId, List<ControlEvent> events);

    /** A hint that is not part of the durable log (may be lost; clients recover via snapshot). */
    void volatileMessage(UUID meetingId, String type, String detail);

    void closeMeeting(UUID meetingId);
}
