package dev.parley.media.stun;

/** ERROR-CODE values used by STUN, TURN and ICE, with the RFCs' recommended reason phrases. */
public final class StunErrorCode {
    public static final int TRY_ALTERNATE = 300;
    public static final int BAD_REQUEST = 400;
    public static final int UNAUTHENTICATED = 401;
    public static final int FORBIDDEN = 403;
    public static final int UNKNOWN_ATTRIBUTE = 420;
    public static final int ALLOCATION_MISMATCH = 437;
    public static final int STALE_NONCE = 438;
    public static final int ADDRESS_FAMILY_NOT_SUPPORTED = 440;
    public static final int WRONG_CREDENTIALS = 441;
    public static final int UNSUPPORTED_TRANSPORT_PROTOCOL = 442;
    public static final int PEER_ADDRESS_FAMILY_MISMATCH = 443;
    public static final int ALLOCATION_QUOTA_REACHED = 486;
    public static final int ROLE_CONFLICT = 487;
    public static final int SERVER_ERROR = 500;
    public static final int INSUFFICIENT_CAPACITY = 508;

    private StunErrorCode() {
    }

    public static String reason(int code) {
        return switch (code) {
            case TRY_ALTERNATE -> "Try Alternate";
            case BAD_REQUEST -> "Bad Request";
            case UNAUTHENTICATED -> "Unauthenticated";
            case FORBIDDEN -> "Forbidden";
            case UNKNOWN_ATTRIBUTE -> "Unknown Attribute";
            case ALLOCATION_MISMATCH -> "Allocation Mismatch";
            case STALE_NONCE -> "Stale Nonce";
            case ADDRESS_FAMILY_NOT_SUPPORTED -> "Address Family not Supported";
            case WRONG_CREDENTIALS -> "Wrong Credentials";
            case UNSUPPORTED_TRANSPORT_PROTOCOL -> "Unsupported Transport Protocol";
            case PEER_ADDRESS_FAMILY_MISMATCH -> "Peer Address Family Mismatch";
            case ALLOCATION_QUOTA_REACHED -> "Allocation Quota Reached";
            case ROLE_CONFLICT -> "Role Conflict";
            case SERVER_ERROR -> "Server Error";
            case INSUFFICIENT_CAPACITY -> "Insufficient Capacity";
            default -> "Error";
        };
    }
}
