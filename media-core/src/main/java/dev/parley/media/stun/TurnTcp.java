package dev.parley.media.stun;

/**
 * TURN extension for TCP allocations (RFC 6062): its methods, attribute and error codes. Kept apart from the
 * RFC 8489/8656 constants because only the TCP relay uses them.
 */
public final class TurnTcp {
    /** REQUESTED-TRANSPORT value of a TCP allocation (IANA protocol number). */
    public static final int PROTOCOL_TCP = 6;

    /** Connect request: the client asks the server to open a TCP connection to a peer (RFC 6062 §4.3). */
    public static final int CONNECT = 0x00A;
    /** ConnectionBind request: sent on a new data connection to attach it to a peer connection (§4.4). */
    public static final int CONNECTION_BIND = 0x00B;
    /** ConnectionAttempt indication: a peer connected to the relayed address (§4.4, §5.3). */
    public static final int CONNECTION_ATTEMPT = 0x00C;

    /** CONNECTION-ID (comprehension-required): 32 bits naming one peer data connection (§6.2.1). */
    public static final int CONNECTION_ID = 0x002A;

    public static final int CONNECTION_ALREADY_EXISTS = 446;
    public static final int CONNECTION_TIMEOUT_OR_FAILURE = 447;

    private TurnTcp() {
    }

    /** Reason phrases of the RFC 6062 error codes. */
    public static String reason(int code) {
        return switch (code) {
            case CONNECTION_ALREADY_EXISTS -> "Connection Already Exists";
            case CONNECTION_TIMEOUT_OR_FAILURE -> "Connection Timeout or Failure";
            default -> StunErrorCode.reason(code);
        };
    }
}
