package dev.parley.media.stun;

/**
 * Attribute type numbers (RFC 8489 §18.3, RFC 8656 §18, RFC 8445 §16.1). Types below 0x8000 are
 * comprehension-required: a request carrying one we do not know must be answered with 420.
 */
public final class StunAttribute {
    public static final int MAPPED_ADDRESS = 0x0001;
    public static final int USERNAME = 0x0006;
    public static final int MESSAGE_INTEGRITY = 0x0008;
    public static final int ERROR_CODE = 0x0009;
    public static final int UNKNOWN_ATTRIBUTES = 0x000A;
    public static final int CHANNEL_NUMBER = 0x000C;
    public static final int LIFETIME = 0x000D;
    public static final int XOR_PEER_ADDRESS = 0x0012;
    public static final int DATA = 0x0013;
    public static final int REALM = 0x0014;
    public static final int NONCE = 0x0015;
    public static final int XOR_RELAYED_ADDRESS = 0x0016;
    public static final int REQUESTED_ADDRESS_FAMILY = 0x0017;
    public static final int EVEN_PORT = 0x0018;
    public static final int REQUESTED_TRANSPORT = 0x0019;
    public static final int DONT_FRAGMENT = 0x001A;
    public static final int MESSAGE_INTEGRITY_SHA256 = 0x001C;
    public static final int PASSWORD_ALGORITHM = 0x001D;
    public static final int USERHASH = 0x001E;
    public static final int XOR_MAPPED_ADDRESS = 0x0020;
    public static final int RESERVATION_TOKEN = 0x0022;
    public static final int PRIORITY = 0x0024;
    public static final int USE_CANDIDATE = 0x0025;

    public static final int PASSWORD_ALGORITHMS = 0x8002;
    public static final int ALTERNATE_DOMAIN = 0x8003;
    public static final int SOFTWARE = 0x8022;
    public static final int ALTERNATE_SERVER = 0x8023;
    public static final int FINGERPRINT = 0x8028;
    public static final int ICE_CONTROLLED = 0x8029;
    public static final int ICE_CONTROLLING = 0x802A;

    private StunAttribute() {
    }

    public static boolean isComprehensionRequired(int type) {
        return type < 0x8000;
    }

    public static String name(int type) {
        return switch (type) {
            case MAPPED_ADDRESS -> "MAPPED-ADDRESS";
            case USERNAME -> "USERNAME";
            case MESSAGE_INTEGRITY -> "MESSAGE-INTEGRITY";
            case ERROR_CODE -> "ERROR-CODE";
            case UNKNOWN_ATTRIBUTES -> "UNKNOWN-ATTRIBUTES";
            case CHANNEL_NUMBER -> "CHANNEL-NUMBER";
            case LIFETIME -> "LIFETIME";
            case XOR_PEER_ADDRESS -> "XOR-PEER-ADDRESS";
            case DATA -> "DATA";
            case REALM -> "REALM";
            case NONCE -> "NONCE";
            case XOR_RELAYED_ADDRESS -> "XOR-RELAYED-ADDRESS";
            case REQUESTED_ADDRESS_FAMILY -> "REQUESTED-ADDRESS-FAMILY";
            case EVEN_PORT -> "EVEN-PORT";
            case REQUESTED_TRANSPORT -> "REQUESTED-TRANSPORT";
            case DONT_FRAGMENT -> "DONT-FRAGMENT";
            case MESSAGE_INTEGRITY_SHA256 -> "MESSAGE-INTEGRITY-SHA256";
            case PASSWORD_ALGORITHM -> "PASSWORD-ALGORITHM";
            case USERHASH -> "USERHASH";
            case XOR_MAPPED_ADDRESS -> "XOR-MAPPED-ADDRESS";
            case RESERVATION_TOKEN -> "RESERVATION-TOKEN";
            case PRIORITY -> "PRIORITY";
            case USE_CANDIDATE -> "USE-CANDIDATE";
            case PASSWORD_ALGORITHMS -> "PASSWORD-ALGORITHMS";
            case ALTERNATE_DOMAIN -> "ALTERNATE-DOMAIN";
            case SOFTWARE -> "SOFTWARE";
            case ALTERNATE_SERVER -> "ALTERNATE-SERVER";
            case FINGERPRINT -> "FINGERPRINT";
            case ICE_CONTROLLED -> "ICE-CONTROLLED";
            case ICE_CONTROLLING -> "ICE-CONTROLLING";
            default -> String.format("0x%04x", type);
        };
    }
}
