package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;

import java.util.UUID;

/**
 * The answer and the {@code command_committed} event of a command, built here for both paths that commit one
 * (the general transaction and the admit done by the database function), so they cannot drift apart.
 */
final class CommandResults {
    private CommandResults() {
    }

    /** Completes a handler's answer: the command's id, state and enforcement. */
    static void complete(ObjectNode answer, UUID commandId, boolean pending) {
        answer.put("command_id", commandId.toString());
        answer.put("state", "committed");
        answer.put("media_enforcement", enforcement(pending));
    }

    /** The {@code command_committed} event's payload ({@code target} may be null). */
    static ObjectNode committedEvent(UUID commandId, CommandType type, boolean pending, UUID target) {
        ObjectNode ev = JsonBody.obj();
        ev.put("command_id", commandId.toString());
        // command_type, not type: the socket merges the payload into an event whose own type is
        // "command_committed", and a payload "type" used to overwrite it (docs/api.md)
        ev.put("command_type", type.wire());
        ev.put("media_enforcement", enforcement(pending));
        if (target != null) {
            ev.put("participant_id", target.toString());
        }
        return ev;
    }

    static String enforcement(boolean pending) {
        return pending ? "pending" : "not_required";
    }
}
