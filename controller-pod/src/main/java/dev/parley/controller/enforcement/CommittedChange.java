package dev.parley.controller.enforcement;

import dev.parley.controller.participant.ParticipantRow;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a committed command means for media, as the grant side reads it: the rows it wrote and, when
 * {@link #pending()}, the participant versions every SFU must enforce before the command is {@code applied}.
 * Implemented by the command package's result, so {@code media} needs no import of {@code command}.
 */
public interface CommittedChange {
    UUID commandId();

    /** Participant → the version whose enforcement makes the command applied. */
    Map<UUID, Long> grantTargets();

    /** The participant rows the transaction wrote, as it left them. */
    List<ParticipantRow> changed();

    boolean pending();

    boolean endsMeeting();

    /** An Idempotency-Key replay: nothing changed. */
    boolean replay();
}
