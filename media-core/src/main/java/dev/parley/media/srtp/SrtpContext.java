package dev.parley.media.srtp;

import dev.parley.media.rtp.RtpPacket;
import io.netty.util.collection.IntObjectHashMap;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;

/**
 * One direction of SRTP/SRTCP protection for one master key (RFC 3711 AES_CM_128_HMAC_SHA1_80, RFC 7714
 * AEAD_AES_128_GCM). Ciphers and MACs are created once; protect/unprotect work in place on a byte array.
 * Not thread-safe: each context belongs to one event loop.
 *
 * <p>Receive side: the packet is authenticated before anything else is trusted, the rollover counter and
 * replay window only move after authentication succeeds.
 */
public final class SrtpContext {
    public static final int ERR_MALFORMED = -1, ERR_AUTH = -2, ERR_REPLAY = -3, ERR_TOO_MANY_SSRCS = -4;
    /** protectRtp (AEAD): this SSRC and index were sealed already, or are too old to tell — refused, not re-sealed. */
    public static final int ERR_NONCE_REUSE = -5;
    private static final int MAX_SSRCS = 256;
    private static final int HMAC_TAG = 10;

    private final SrtpProfile profile;
    private final SecretKeySpec rtpKey, rtcpKey;
    private final byte[] rtpSalt, rtcpSalt;
    private final Cipher rtpCipher, rtcpCipher;
    private final Mac rtpMac, rtcpMac;
    private final IntObjectHashMap<SsrcState> streams = new IntObjectHashMap<>();
    private final IntObjectHashMap<ReplayWindow> rtcpReplay = new IntObjectHashMap<>();
    private final byte[] block = new byte[16];
    private final byte[] iv12 = new byte[12];
    private final byte[] digest = new byte[20];
    private final byte[] word = new byte[4];
    private byte[] ctrIn = new byte[2048], ctrOut = new byte[2048];
    private long srtcpIndex;

    private static final class SsrcState {
        int roc;
        int highestSeq;
        boolean initialised;
        final ReplayWindow replay = new ReplayWindow();
        /** Sending side, AEAD only: indices already sealed (created on first use). */
        SealedIndexWindow sealed;
    }

    /** Session keys for one direction (RFC 3711 §4.3). Auth keys are null for AEAD profiles. */
    public record SessionKeys(byte[] rtpKey, byte[] rtpSalt, byte[] rtpAuth, byte[] rtcpKey, byte[] rtcpSalt, byte[] rtcpAuth) {}

    /** Derives the session keys from a DTLS-SRTP master key and salt. */
    public static SrtpContext fromMaster(SrtpProfile profile, byte[] masterKey, byte[] masterSalt) {
        boolean hmac = profile == SrtpProfile.AES128_CM_HMAC_SHA1_80;
        return new SrtpContext(profile, new SessionKeys(
                SrtpKeyDerivation.derive(masterKey, masterSalt, SrtpKeyDerivation.LABEL_RTP_ENCRYPTION, profile.keyLength),
                SrtpKeyDerivation.derive(masterKey, masterSalt, SrtpKeyDerivation.LABEL_RTP_SALT, profile.saltLength),
                hmac ? SrtpKeyDerivation.derive(masterKey, masterSalt, SrtpKeyDerivation.LABEL_RTP_AUTH, 20) : null,
                SrtpKeyDerivation.derive(masterKey, masterSalt, SrtpKeyDerivation.LABEL_RTCP_ENCRYPTION, profile.keyLength),
                SrtpKeyDerivation.derive(masterKey, masterSalt, SrtpKeyDerivation.LABEL_RTCP_SALT, profile.saltLength),
                hmac ? SrtpKeyDerivation.derive(masterKey, masterSalt, SrtpKeyDerivation.LABEL_RTCP_AUTH, 20) : null));
    }

    public SrtpContext(SrtpProfile profile, SessionKeys keys) {
        this.profile = profile;
        try {
            rtpSalt = keys.rtpSalt().clone();
            rtcpSalt = keys.rtcpSalt().clone();
            rtpKey = new SecretKeySpec(keys.rtpKey(), "AES");
            rtcpKey = new SecretKeySpec(keys.rtcpKey(), "AES");
            if (profile == SrtpProfile.AES128_CM_HMAC_SHA1_80) {
                rtpCipher = Cipher.getInstance("AES/ECB/NoPadding");
                rtpCipher.init(Cipher.ENCRYPT_MODE, rtpKey);
                rtcpCipher = Cipher.getInstance("AES/ECB/NoPadding");
                rtcpCipher.init(Cipher.ENCRYPT_MODE, rtcpKey);
                rtpMac = Mac.getInstance("HmacSHA1");
                rtpMac.init(new SecretKeySpec(keys.rtpAuth(), "HmacSHA1"));
                rtcpMac = Mac.getInstance("HmacSHA1");
                rtcpMac.init(new SecretKeySpec(keys.rtcpAuth(), "HmacSHA1"));
            } else {
                rtpCipher = Cipher.getInstance("AES/GCM/NoPadding");
                rtcpCipher = Cipher.getInstance("AES/GCM/NoPadding");
                rtpMac = null;
                rtcpMac = null;
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SRTP primitives unavailable", e);
        }
    }

    public SrtpProfile profile() { return profile; }

    /** Bytes protectRtp adds. */
    public int rtpOverhead() { return profile.tagLength; }

    /** Bytes protectRtcp adds. */
    public int rtcpOverhead() { return profile.tagLength + 4; }

    // ------------------------------------------------------------------ RTP

    /** Encrypts and authenticates in place; {@code b} needs {@link #rtpOverhead()} spare bytes. Returns new length. */
    public int protectRtp(byte[] b, int off, int len) {
        int hl = RtpPacket.headerLength(b, off, len);
        if (hl < 0) return ERR_MALFORMED;
        int ssrc = RtpPacket.ssrc(b, off);
        int seq = RtpPacket.sequence(b, off);
        SsrcState s = streams.get(ssrc);
        if (s == null) {
            if (streams.size() >= MAX_SSRCS) return ERR_TOO_MANY_SSRCS;
            s = new SsrcState();
            streams.put(ssrc, s);
        }
        if (!s.initialised) { s.initialised = true; s.highestSeq = seq; }
        else {
            int d = RtpPacket.seqDelta(seq, s.highestSeq);
            if (d > 0) { if (seq < s.highestSeq) s.roc++; s.highestSeq = seq; }
        }
        int roc = s.roc;
        // a retransmitted old packet from before the last wrap uses the previous ROC
        if (seq > s.highestSeq && RtpPacket.seqDelta(seq, s.highestSeq) < 0) roc--;
        try {
            if (profile == SrtpProfile.AEAD_AES_128_GCM) {
                if (s.sealed == null) s.sealed = new SealedIndexWindow();
                if (!s.sealed.claim(((long) roc << 16) | seq)) return ERR_NONCE_REUSE;
                gcmIv(rtpSalt, ssrc, roc, seq);
                rtpCipher.init(Cipher.ENCRYPT_MODE, rtpKey, new GCMParameterSpec(128, iv12));
                rtpCipher.updateAAD(b, off, hl);
                int n = rtpCipher.doFinal(b, off + hl, len - hl, b, off + hl);
                return hl + n;
            }
            ctr(rtpCipher, rtpSalt, ssrc, ((long) roc << 16) | seq, b, off + hl, len - hl);
            rtpMac.update(b, off, len);
            RtpPacket.writeUint32(word, 0, roc & 0xFFFFFFFFL);
            rtpMac.update(word, 0, 4);
            rtpMac.doFinal(digest, 0);
            System.arraycopy(digest, 0, b, off + len, HMAC_TAG);
            return len + HMAC_TAG;
        } catch (GeneralSecurityException e) {
            return ERR_MALFORMED;
        }
    }

    /** Authenticates, checks replay and decrypts in place. Returns plaintext length or a negative ERR_ code. */
    public int unprotectRtp(byte[] b, int off, int len) {
        int tag = profile.tagLength;
        if (len < RtpPacket.FIXED_HEADER + tag) return ERR_MALFORMED;
        int hl = RtpPacket.headerLength(b, off, len - tag);
        if (hl < 0) return ERR_MALFORMED;
        int ssrc = RtpPacket.ssrc(b, off);
        int seq = RtpPacket.sequence(b, off);
        SsrcState s = streams.get(ssrc);
        int roc;
        if (s == null || !s.initialised) roc = 0;
        else roc = estimateRoc(s, seq);
        long index = ((long) roc << 16) | seq;
        if (s != null && s.replay.isReplay(index)) return ERR_REPLAY;
        int plainLen;
        try {
            if (profile == SrtpProfile.AEAD_AES_128_GCM) {
                gcmIv(rtpSalt, ssrc, roc, seq);
                rtpCipher.init(Cipher.DECRYPT_MODE, rtpKey, new GCMParameterSpec(128, iv12));
                rtpCipher.updateAAD(b, off, hl);
                plainLen = hl + rtpCipher.doFinal(b, off + hl, len - hl, b, off + hl);
            } else {
                int body = len - tag;
                rtpMac.update(b, off, body);
                RtpPacket.writeUint32(word, 0, roc & 0xFFFFFFFFL);
                rtpMac.update(word, 0, 4);
                rtpMac.doFinal(digest, 0);
                if (!constantTimeEquals(digest, b, off + body, HMAC_TAG)) return ERR_AUTH;
                ctr(rtpCipher, rtpSalt, ssrc, index, b, off + hl, body - hl);
                plainLen = body;
            }
        } catch (AEADBadTagException e) {
            return ERR_AUTH;
        } catch (GeneralSecurityException | IllegalArgumentException | IllegalStateException e) {
            return ERR_MALFORMED;
        }
        if (s == null) {
            if (streams.size() >= MAX_SSRCS) return ERR_TOO_MANY_SSRCS;
            s = new SsrcState();
            streams.put(ssrc, s);
        }
        if (!s.initialised) { s.initialised = true; s.highestSeq = seq; s.roc = roc; }
        else if (index > (((long) s.roc << 16) | s.highestSeq)) { s.roc = roc; s.highestSeq = seq; }
        s.replay.accept(index);
        return plainLen;
    }

    /** RFC 3711 Appendix A. */
    private static int estimateRoc(SsrcState s, int seq) {
        int sl = s.highestSeq;
        if (sl < 32768) return (seq - sl > 32768) ? s.roc - 1 : s.roc;
        return (sl - 32768 > seq) ? s.roc + 1 : s.roc;
    }

    // ------------------------------------------------------------------ RTCP

    /** Encrypts and authenticates an RTCP compound packet in place; needs {@link #rtcpOverhead()} spare bytes. */
    public int protectRtcp(byte[] b, int off, int len) {
        if (len < 8) return ERR_MALFORMED;
        int ssrc = (int) RtpPacket.readUint32(b, off + 4);
        long index = srtcpIndex;
        srtcpIndex = (srtcpIndex + 1) & 0x7FFFFFFFL;
        long eIndex = 0x80000000L | index;
        try {
            if (profile == SrtpProfile.AEAD_AES_128_GCM) {
                gcmRtcpIv(ssrc, index);
                rtcpCipher.init(Cipher.ENCRYPT_MODE, rtcpKey, new GCMParameterSpec(128, iv12));
                rtcpCipher.updateAAD(b, off, 8);
                RtpPacket.writeUint32(word, 0, eIndex);
                rtcpCipher.updateAAD(word, 0, 4);
                int n = rtcpCipher.doFinal(b, off + 8, len - 8, b, off + 8);
                RtpPacket.writeUint32(b, off + 8 + n, eIndex);
                return 8 + n + 4;
            }
            ctr(rtcpCipher, rtcpSalt, ssrc, index, b, off + 8, len - 8);
            RtpPacket.writeUint32(b, off + len, eIndex);
            rtcpMac.update(b, off, len + 4);
            rtcpMac.doFinal(digest, 0);
            System.arraycopy(digest, 0, b, off + len + 4, HMAC_TAG);
            return len + 4 + HMAC_TAG;
        } catch (GeneralSecurityException e) {
            return ERR_MALFORMED;
        }
    }

    /** Authenticates, replay-checks and decrypts SRTCP in place. Returns plaintext length or a negative ERR_ code. */
    public int unprotectRtcp(byte[] b, int off, int len) {
        int tag = profile.tagLength;
        if (len < 8 + 4 + tag) return ERR_MALFORMED;
        int ssrc = (int) RtpPacket.readUint32(b, off + 4);
        long eIndex;
        int plainLen;
        try {
            if (profile == SrtpProfile.AEAD_AES_128_GCM) {
                eIndex = RtpPacket.readUint32(b, off + len - 4);
                long index = eIndex & 0x7FFFFFFFL;
                ReplayWindow w = rtcpReplay.get(ssrc);
                if (w != null && w.isReplay(index)) return ERR_REPLAY;
                if ((eIndex & 0x80000000L) == 0) {
                    return ERR_MALFORMED; // unencrypted SRTCP is not negotiated
                }
                gcmRtcpIv(ssrc, index);
                rtcpCipher.init(Cipher.DECRYPT_MODE, rtcpKey, new GCMParameterSpec(128, iv12));
                rtcpCipher.updateAAD(b, off, 8);
                rtcpCipher.updateAAD(b, off + len - 4, 4);
                plainLen = 8 + rtcpCipher.doFinal(b, off + 8, len - 12, b, off + 8);
                accept(ssrc, index);
                return plainLen;
            }
            int body = len - tag;               // includes E|index
            eIndex = RtpPacket.readUint32(b, off + body - 4);
            long index = eIndex & 0x7FFFFFFFL;
            rtcpMac.update(b, off, body);
            rtcpMac.doFinal(digest, 0);
            if (!constantTimeEquals(digest, b, off + body, HMAC_TAG)) return ERR_AUTH;
            ReplayWindow w = rtcpReplay.get(ssrc);
            if (w != null && w.isReplay(index)) return ERR_REPLAY;
            plainLen = body - 4;
            if ((eIndex & 0x80000000L) != 0) ctr(rtcpCipher, rtcpSalt, ssrc, index, b, off + 8, plainLen - 8);
            accept(ssrc, index);
            return plainLen;
        } catch (AEADBadTagException e) {
            return ERR_AUTH;
        } catch (GeneralSecurityException | IllegalArgumentException | IllegalStateException e) {
            return ERR_MALFORMED;
        }
    }

    private void accept(int ssrc, long index) {
        ReplayWindow w = rtcpReplay.get(ssrc);
        if (w == null) {
            if (rtcpReplay.size() >= MAX_SSRCS) return;
            w = new ReplayWindow();
            rtcpReplay.put(ssrc, w);
        }
        w.accept(index);
    }

    // ------------------------------------------------------------------ primitives

    /** AES-CM (RFC 3711 §4.1.1): XORs the keystream for (ssrc, index) over b[from, from+n). */
    private void ctr(Cipher ecb, byte[] salt, int ssrc, long index, byte[] b, int from, int n) throws GeneralSecurityException {
        if (n <= 0) return;
        java.util.Arrays.fill(block, (byte) 0);
        System.arraycopy(salt, 0, block, 0, 14);
        block[4] ^= (byte) (ssrc >>> 24); block[5] ^= (byte) (ssrc >>> 16);
        block[6] ^= (byte) (ssrc >>> 8); block[7] ^= (byte) ssrc;
        block[8] ^= (byte) (index >>> 40); block[9] ^= (byte) (index >>> 32);
        block[10] ^= (byte) (index >>> 24); block[11] ^= (byte) (index >>> 16);
        block[12] ^= (byte) (index >>> 8); block[13] ^= (byte) index;
        int blocks = (n + 15) >>> 4;
        int bytes = blocks << 4;
        if (ctrIn.length < bytes) { ctrIn = new byte[bytes]; ctrOut = new byte[bytes]; }
        for (int i = 0; i < blocks; i++) {
            int p = i << 4;
            System.arraycopy(block, 0, ctrIn, p, 14);
            ctrIn[p + 14] = (byte) (i >>> 8);
            ctrIn[p + 15] = (byte) i;
        }
        ecb.doFinal(ctrIn, 0, bytes, ctrOut, 0);
        for (int i = 0; i < n; i++) b[from + i] ^= ctrOut[i];
    }

    private void gcmIv(byte[] salt, int ssrc, int roc, int seq) {
        iv12[0] = salt[0]; iv12[1] = salt[1];
        iv12[2] = (byte) (salt[2] ^ (ssrc >>> 24)); iv12[3] = (byte) (salt[3] ^ (ssrc >>> 16));
        iv12[4] = (byte) (salt[4] ^ (ssrc >>> 8)); iv12[5] = (byte) (salt[5] ^ ssrc);
        iv12[6] = (byte) (salt[6] ^ (roc >>> 24)); iv12[7] = (byte) (salt[7] ^ (roc >>> 16));
        iv12[8] = (byte) (salt[8] ^ (roc >>> 8)); iv12[9] = (byte) (salt[9] ^ roc);
        iv12[10] = (byte) (salt[10] ^ (seq >>> 8)); iv12[11] = (byte) (salt[11] ^ seq);
    }

    private void gcmRtcpIv(int ssrc, long index) {
        byte[] s = rtcpSalt;
        iv12[0] = s[0]; iv12[1] = s[1];
        iv12[2] = (byte) (s[2] ^ (ssrc >>> 24)); iv12[3] = (byte) (s[3] ^ (ssrc >>> 16));
        iv12[4] = (byte) (s[4] ^ (ssrc >>> 8)); iv12[5] = (byte) (s[5] ^ ssrc);
        iv12[6] = s[6]; iv12[7] = s[7];
        iv12[8] = (byte) (s[8] ^ (index >>> 24)); iv12[9] = (byte) (s[9] ^ (index >>> 16));
        iv12[10] = (byte) (s[10] ^ (index >>> 8)); iv12[11] = (byte) (s[11] ^ index);
    }

    private static boolean constantTimeEquals(byte[] a, byte[] b, int bo, int n) {
        int r = 0;
        for (int i = 0; i < n; i++) r |= a[i] ^ b[bo + i];
        return r == 0;
    }

    /** Exposed for the RFC 3711 B.2 keystream vector test. */
    static byte[] keystreamForTest(byte[] sessionKey, byte[] sessionSalt, int ssrc, long index, int n) throws GeneralSecurityException {
        Cipher ecb = Cipher.getInstance("AES/ECB/NoPadding");
        ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(sessionKey, "AES"));
        SrtpContext dummy = fromMaster(SrtpProfile.AES128_CM_HMAC_SHA1_80, new byte[16], new byte[14]);
        byte[] out = new byte[n];
        dummy.ctr(ecb, sessionSalt, ssrc, index, out, 0, n);
        return out;
    }
}
