package dev.parley.controller.command;

import dev.parley.controller.http.ApiException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The command type is parsed once, from the wire name; anything else is a 400 naming the known types. */
class CommandTypeTest {
    @Test
    void everyWireNameParsesToItsType() {
        for (CommandType t : CommandType.values()) {
            assertThat(CommandType.parse(t.wire())).isSameAs(t);
        }
        assertThat(CommandService.TYPES).hasSize(17).contains("admit", "end_meeting", "stop_recording",
                "set_large_meeting_policy", "allow_speak", "raise_hand", "lower_hand");
    }

    @Test
    void unknownTypeIsA400() {
        assertThatThrownBy(() -> CommandType.parse("ADMIT")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.code()).isEqualTo("unknown_command");
        });
    }

    @Test
    void onlyCommandsOnOneParticipantPrefetchIt() {
        assertThat(CommandType.ADMIT.targeted()).isTrue();
        assertThat(CommandType.TRANSFER_HOST.targeted()).isTrue();
        assertThat(CommandType.MUTE_ALL.targeted()).isFalse();
        assertThat(CommandType.START_RECORDING.area()).isEqualTo(CommandType.Area.RECORDING);
        assertThat(CommandType.ALLOW_SPEAK.targeted()).isTrue();
        assertThat(CommandType.RAISE_HAND.targeted()).isFalse();
    }

    @Test
    void onlyOwnHandsAreSelfService() {
        for (CommandType t : CommandType.values()) {
            assertThat(t.selfService()).as(t.wire()).isEqualTo(t == CommandType.RAISE_HAND || t == CommandType.LOWER_HAND);
        }
    }
}
