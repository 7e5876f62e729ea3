package dev.parley.controller.command;

import dev.parley.controller.http.ApiException;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The closed set of meeting commands, parsed once from the body's {@code type}: its wire name, the area whose
 * handler runs it and whether it acts on one participant ({@code participant_id}, whose row is fetched and locked
 * with the meeting). The other fields are read by the handler, in its order, so a bad field is reported after
 * the checks that come before it (role, state), as the API has always answered.
 */
public enum CommandType {
    ADMIT("admit", Area.PARTICIPANT, true),
    DENY("deny", Area.PARTICIPANT, true),
    REMOVE_PARTICIPANT("remove_participant", Area.PARTICIPANT, true),
    SET_PUBLISH("set_publish", Area.PARTICIPANT, true),
    REVOKE_AUDIO_PUBLISH("revoke_audio_publish", Area.PARTICIPANT, true),
    REQUEST_UNMUTE("request_unmute", Area.PARTICIPANT, true),
    SET_ROLE("set_role", Area.PARTICIPANT, true),
    TRANSFER_HOST("transfer_host", Area.PARTICIPANT, true),
    MUTE_ALL("mute_all", Area.MEETING, false),
    LOCK_MEETING("lock_meeting", Area.MEETING, false),
    END_MEETING("end_meeting", Area.MEETING, false),
    START_RECORDING("start_recording", Area.RECORDING, false),
    STOP_RECORDING("stop_recording", Area.RECORDING, false),
    SET_LARGE_MEETING_POLICY("set_large_meeting_policy", Area.LARGE_MEETING, false),
    ALLOW_SPEAK("allow_speak", Area.LARGE_MEETING, true),
    RAISE_HAND("raise_hand", Area.LARGE_MEETING, false),
    LOWER_HAND("lower_hand", Area.LARGE_MEETING, false);

    /** Which handler runs a command. */
    enum Area { PARTICIPANT, MEETING, RECORDING, LARGE_MEETING }

    private static final Map<String, CommandType> BY_WIRE = Arrays.stream(values())
            .collect(Collectors.toUnmodifiableMap(CommandType::wire, Function.identity()));
    private static final List<String> SORTED = BY_WIRE.keySet().stream().sorted().toList();

    private final String wire;
    private final Area area;
    private final boolean targeted;

    CommandType(String wire, Area area, boolean targeted) {
        this.wire = wire;
        this.area = area;
        this.targeted = targeted;
    }

    /** The name on the wire ({@code type} of the request, {@code command_type} of events, the commands table). */
    public String wire() {
        return wire;
    }

    Area area() {
        return area;
    }

    /** Acts on one participant ({@code participant_id}). */
    boolean targeted() {
        return targeted;
    }

    /** The command of this wire name; 400 {@code unknown_command} (with the known names) for anything else. */
    public static CommandType parse(String wire) {
        CommandType t = BY_WIRE.get(wire);
        if (t == null) {
            throw ApiException.badRequest("unknown_command", "unknown command type '" + wire + "'")
                    .with("known_types", SORTED);
        }
        return t;
    }

    /**
     * Any admitted participant may run it for itself (raise or lower its own hand); every other command needs a
     * moderator (a host or cohost).
     */
    boolean selfService() {
        return this == RAISE_HAND || this == LOWER_HAND;
    }

    /** Every wire name. */
    public static java.util.Set<String> wireNames() {
        return BY_WIRE.keySet();
    }
}
