package dev.parley.sfu.speaker;

import java.util.List;

/**
 * The active speakers of a meeting, loudest first, dominant speaker at index 0. Volatile: each new value
 * replaces the previous one entirely, so a sender may drop any it could not deliver and send only the
 * latest (seed 002: coalesce volatile events).
 *
 * @param sequence increases with every change, so a receiver can ignore an out-of-order older list
 */
public record ActiveSpeakers(long sequence, List<String> speakers) {

    public ActiveSpeakers {
        speakers = List.copyOf(speakers);
    }

    /** The dominant speaker, or null when nobody speaks. */
    public String dominant() {
        return speakers.isEmpty() ? null : speakers.get(0);
    }
}
