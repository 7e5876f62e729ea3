package dev.parley.controller.control;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.UUID;

/**
 * One committed control event of a meeting. {@code cursor} is {@code {controller_epoch}.{seq}};
 * {@code audience} null means every participant may see it.
 */
public record ControlEvent(UUID meetingId, long epoch, long seq, UUID eventId, String type, ObjectNode payload,
                           UUID audience) {
    public String cursor() {
        return epoch + "." + seq;
    }
}
