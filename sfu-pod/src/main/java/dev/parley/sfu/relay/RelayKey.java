package dev.parley.sfu.relay;

import dev.parley.media.srtp.SrtpContext;
import dev.parley.media.srtp.SrtpProfile;

import java.util.Arrays;
import java.util.Base64;

/**
 * The SRTP master key of one relay, issued by the controller to both SFUs over the internal API (docs/internal-api.md
 * "Relays between SFUs": why not DTLS). One key per relay: RTP flows origin → receiver, SRTCP receiver → origin, so
 * the two directions use different derived keys (RFC 3711 §4.3 labels) and never share a nonce. Never logged.
 */
public final class RelayKey {
    private final SrtpProfile profile;
    private final byte[] key, salt;

    private RelayKey(SrtpProfile profile, byte[] key, byte[] salt) {
        this.profile = profile;
        this.key = key;
        this.salt = salt;
    }

    /**
     * @param profile {@code AEAD_AES_128_GCM} or {@code AES128_CM_HMAC_SHA1_80}
     * @param base64  master key followed by master salt (28 bytes for GCM, 30 for CM), base64
     * @throws IllegalArgumentException with a message that names the field, never the key
     */
    public static RelayKey parse(String profile, String base64) {
        SrtpProfile p;
        try {
            p = SrtpProfile.valueOf(profile);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("srtp.profile: must be AEAD_AES_128_GCM or AES128_CM_HMAC_SHA1_80");
        }
        byte[] all;
        try {
            all = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("srtp.key: not base64");
        }
        if (all.length != p.keyLength + p.saltLength) {
            throw new IllegalArgumentException("srtp.key: must be " + (p.keyLength + p.saltLength) + " bytes (master key + salt)");
        }
        return new RelayKey(p, Arrays.copyOf(all, p.keyLength), Arrays.copyOfRange(all, p.keyLength, all.length));
    }

    /** A fresh context (each side keeps its own replay and rollover state). */
    public SrtpContext context() { return SrtpContext.fromMaster(profile, key, salt); }

    public SrtpProfile profile() { return profile; }

    @Override
    public String toString() { return "RelayKey[" + profile + "]"; }
}
