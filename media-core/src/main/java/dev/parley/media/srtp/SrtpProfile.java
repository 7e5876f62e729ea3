package dev.parley.media.srtp;

/** SRTP protection profiles Parley supports, with their DTLS-SRTP ids (RFC 5764 §4.1.2, RFC 7714 §14.2). */
public enum SrtpProfile {
    AES128_CM_HMAC_SHA1_80(0x0001, 16, 14, 10),
    AEAD_AES_128_GCM(0x0007, 16, 12, 16);

    public final int dtlsId;
    public final int keyLength;
    public final int saltLength;
    /** Authentication tag length appended to each SRTP packet. */
    public final int tagLength;

    SrtpProfile(int dtlsId, int keyLength, int saltLength, int tagLength) {
        this.dtlsId = dtlsId;
        this.keyLength = keyLength;
        this.saltLength = saltLength;
        this.tagLength = tagLength;
    }

    public static SrtpProfile byDtlsId(int id) {
        for (SrtpProfile p : values()) if (p.dtlsId == id) return p;
        return null;
    }
}
