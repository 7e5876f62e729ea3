package dev.parley.media.stun;

/** Thrown when bytes are not a well-formed STUN message (or ChannelData frame). The only exception the decoders throw. */
public final class StunParseException extends Exception {
    private static final long serialVersionUID = 1L;

    public StunParseException(String message) {
        // No stack trace: parse failures are routine on a packet path and are counted, not debugged.
        super(message, null, false, false);
    }
}
