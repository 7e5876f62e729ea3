package dev.parley.controller.e2ee;

import java.util.UUID;

/** The joined signaling socket a key message came from: its meeting, participant and controller epoch. */
public record Sender(UUID meetingId, UUID participantId, long epoch) {
}
