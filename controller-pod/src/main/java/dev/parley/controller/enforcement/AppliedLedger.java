package dev.parley.controller.enforcement;

import dev.parley.controller.control.ControlEvent;

import java.util.List;
import java.util.UUID;

/**
 * Where a command whose enforcement is complete is recorded {@code applied}. Implemented by the command ledger
 * (a higher layer); Micronaut injects that one bean, so this package does not import {@code command}.
 */
public interface AppliedLedger {
    /** Marks a pending command applied (fenced by epoch); the events to publish, empty if nothing changed. */
    List<ControlEvent> markApplied(UUID meetingId, long epoch, UUID commandId, boolean endsMeeting);
}
