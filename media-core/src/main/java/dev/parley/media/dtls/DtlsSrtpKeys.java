package dev.parley.media.dtls;

import dev.parley.media.srtp.SrtpContext;
import dev.parley.media.srtp.SrtpProfile;

/** The outcome of a DTLS-SRTP handshake: the negotiated profile and both directions' master keys (RFC 5764 §4.2). */
public record DtlsSrtpKeys(SrtpProfile profile, byte[] localKey, byte[] localSalt, byte[] remoteKey, byte[] remoteSalt) {

    static DtlsSrtpKeys fromExporter(SrtpProfile p, byte[] km, boolean server) {
        int k = p.keyLength, s = p.saltLength;
        byte[] ck = slice(km, 0, k), sk = slice(km, k, k), cs = slice(km, 2 * k, s), ss = slice(km, 2 * k + s, s);
        return server ? new DtlsSrtpKeys(p, sk, ss, ck, cs) : new DtlsSrtpKeys(p, ck, cs, sk, ss);
    }

    private static byte[] slice(byte[] b, int o, int n) {
        byte[] r = new byte[n];
        System.arraycopy(b, o, r, 0, n);
        return r;
    }

    /** Context protecting what we send. */
    public SrtpContext outbound() { return SrtpContext.fromMaster(profile, localKey, localSalt); }

    /** Context unprotecting what we receive. */
    public SrtpContext inbound() { return SrtpContext.fromMaster(profile, remoteKey, remoteSalt); }

    @Override
    public String toString() { return "DtlsSrtpKeys[" + profile + "]"; } // never print key material
}
