package dev.parley.media.srtp;

import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;

/** AES-CM key derivation function (RFC 3711 §4.3.1) with key derivation rate 0, as DTLS-SRTP uses. */
public final class SrtpKeyDerivation {
    public static final int LABEL_RTP_ENCRYPTION = 0, LABEL_RTP_AUTH = 1, LABEL_RTP_SALT = 2;
    public static final int LABEL_RTCP_ENCRYPTION = 3, LABEL_RTCP_AUTH = 4, LABEL_RTCP_SALT = 5;

    private SrtpKeyDerivation() {}

    public static byte[] derive(byte[] masterKey, byte[] masterSalt, int label, int length) {
        try {
            Cipher aes = Cipher.getInstance("AES/ECB/NoPadding");
            aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(masterKey, "AES"));
            // x = (label << 48) XOR master_salt, aligned right in a 112-bit field, then shifted left 16.
            byte[] iv = new byte[16];
            System.arraycopy(masterSalt, 0, iv, 0, Math.min(14, masterSalt.length));
            iv[7] ^= (byte) label;
            int blocks = (length + 15) / 16;
            byte[] in = new byte[blocks * 16];
            for (int i = 0; i < blocks; i++) {
                System.arraycopy(iv, 0, in, i * 16, 16);
                in[i * 16 + 14] = (byte) (i >>> 8);
                in[i * 16 + 15] = (byte) i;
            }
            byte[] out = aes.doFinal(in);
            byte[] r = new byte[length];
            System.arraycopy(out, 0, r, 0, length);
            return r;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES unavailable", e);
        }
    }
}
