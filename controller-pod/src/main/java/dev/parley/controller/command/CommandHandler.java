package dev.parley.controller.command;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.sql.SQLException;

/** Runs the commands of one {@link CommandType.Area} inside the command's transaction. */
sealed interface CommandHandler permits ParticipantCommands, MeetingCommands, RecordingCommands,
        LargeMeetingCommands {
    /** Applies the command: fenced writes, deferred events, and the answer's command-specific fields. */
    void run(CommandType type, CommandContext x, ObjectNode answer) throws SQLException;
}
