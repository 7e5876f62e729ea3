package dev.parley.media.dtls;

/**
 * Structural check of a datagram of DTLS 1.2 records (RFC 6347 §4.1) before it reaches the handshake. RFC 6347
 * §4.1.2.7: invalid records are silently discarded, because over UDP anyone can send them; BouncyCastle discards
 * many itself but raises a fatal alert for some (a handshake message it cannot parse, an unexpected message type,
 * a protected record shorter than its cipher's overhead), so they must not get that far. No allocation.
 */
public final class DtlsRecords {
    public static final int HEADER = 13;
    /** The datagram is not well-formed DTLS: header, content type, version, length or content is wrong. */
    public static final int INVALID = -1;
    /** Well-formed, but not something this endpoint accepts at this point of the handshake ({@link Rule}). */
    public static final int UNEXPECTED = -2;
    /**
     * Smallest protected (epoch 1) record of the suites {@link DtlsEndpoint} offers, all AEAD: ChaCha20-Poly1305
     * has no explicit nonce, so its 16-byte tag alone. Shorter ones make BouncyCastle raise decode_error.
     */
    public static final int MIN_PROTECTED = 16;
    /** Largest handshake message accepted: BouncyCastle allocates the announced length when reassembling. */
    static final int MAX_HANDSHAKE_MESSAGE = 1 << 16;
    private static final int HANDSHAKE_HEADER = 12;
    private static final int MAX_RECORD = 16384 + 2048;

    /**
     * What, beyond well-formedness, the receiver accepts now. All but {@link #ANY} refuse plaintext (epoch 0)
     * alerts: they are unauthenticated, so anyone able to send on the path could end the handshake with one.
     */
    public enum Rule {
        /** Any well-formed record. */
        ANY,
        /** A server that has sent nothing yet: only epoch-0 ClientHello fragments. */
        CLIENT_HELLO_ONLY,
        /** A server: handshake messages a client sends (ClientHello, Certificate, ClientKeyExchange, CertificateVerify). */
        FROM_CLIENT,
        /** A client: handshake messages a server sends. */
        FROM_SERVER
    }

    private DtlsRecords() {}

    /** Number of records, or {@link #INVALID}. */
    public static int count(byte[] b, int off, int len) {
        return check(b, off, len, Rule.ANY, MIN_PROTECTED);
    }

    /**
     * Number of records, {@link #INVALID} or {@link #UNEXPECTED}; one bad record rejects the whole datagram.
     *
     * @param minProtected the smallest epoch-1 record the negotiated cipher can decode without an error
     */
    public static int check(byte[] b, int off, int len, Rule rule, int minProtected) {
        int p = off, end = off + len, n = 0;
        boolean unexpected = false;
        while (p < end) {
            if (end - p < HEADER) return INVALID;
            int type = b[p] & 0xFF;
            int version = u16(b, p + 1);
            // DTLS 1.0 (ClientHellos and HelloVerifyRequests) or 1.2; ContentType 24 (heartbeat) and 25 (tls12_cid)
            // are never negotiated here
            if (type < 20 || type > 23 || (version != 0xFEFF && version != 0xFEFD)) return INVALID;
            int epoch = u16(b, p + 3);
            int l = u16(b, p + 11);
            int body = p + HEADER;
            if (l == 0 || l > MAX_RECORD || body + l > end) return INVALID;
            if (epoch == 0) {
                switch (type) {
                    case 20 -> {       // change_cipher_spec: exactly the byte 1
                        if (l != 1 || b[body] != 1) return INVALID;
                        unexpected |= rule == Rule.CLIENT_HELLO_ONLY;
                    }
                    case 21 -> {       // alert: level (warning 1, fatal 2) and description
                        if (l != 2 || (b[body] != 1 && b[body] != 2)) return INVALID;
                        unexpected |= rule != Rule.ANY;
                    }
                    case 22 -> {
                        int h = handshake(b, body, l, rule);
                        if (h < 0) return INVALID;
                        unexpected |= h == 0;
                    }
                    default -> { return INVALID; } // application data needs keys
                }
            } else if (epoch == 1) {   // protected: only its length can be judged here, the AEAD does the rest
                if (l < minProtected) return INVALID;
                unexpected |= rule == Rule.CLIENT_HELLO_ONLY;
            } else {
                return INVALID;        // no renegotiation: epochs past 1 never exist
            }
            p = body + l;
            n++;
        }
        if (n == 0) return INVALID;
        return unexpected ? UNEXPECTED : n;
    }

    /**
     * Walks the handshake fragments filling one plaintext record. Returns 1 if their types are all acceptable
     * under {@code rule}, 0 if some are not, -1 if any is malformed.
     */
    private static int handshake(byte[] b, int p, int l, Rule rule) {
        int end = p + l;
        boolean acceptable = true;
        while (p < end) {
            if (end - p < HANDSHAKE_HEADER) return -1;
            int type = b[p] & 0xFF;
            if (!fromClient(type) && !fromServer(type)) return -1;
            int length = u24(b, p + 1), fragOffset = u24(b, p + 6), fragLength = u24(b, p + 9);
            if (length > MAX_HANDSHAKE_MESSAGE || fragOffset + fragLength > length) return -1;
            p += HANDSHAKE_HEADER + fragLength;
            if (p > end) return -1;
            acceptable &= switch (rule) {
                case ANY -> true;
                case CLIENT_HELLO_ONLY -> type == 1;
                case FROM_CLIENT -> fromClient(type);
                case FROM_SERVER -> fromServer(type);
            };
        }
        return acceptable ? 1 : 0;
    }

    /** Plaintext handshake messages of a DTLS 1.2 client (its Finished is protected, epoch 1). */
    private static boolean fromClient(int t) {
        return t == 1 || t == 11 || t == 15 || t == 16;
    }

    /** Plaintext handshake messages of a DTLS 1.2 server: HelloRequest, ServerHello, HelloVerifyRequest,
     *  NewSessionTicket, Certificate, ServerKeyExchange, CertificateRequest, ServerHelloDone, CertificateStatus. */
    private static boolean fromServer(int t) {
        return switch (t) {
            case 0, 2, 3, 4, 11, 12, 13, 14, 22 -> true;
            default -> false;
        };
    }

    private static int u16(byte[] b, int p) { return ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF); }

    private static int u24(byte[] b, int p) { return ((b[p] & 0xFF) << 16) | ((b[p + 1] & 0xFF) << 8) | (b[p + 2] & 0xFF); }
}
