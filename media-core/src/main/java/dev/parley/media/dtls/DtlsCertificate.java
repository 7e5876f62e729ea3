package dev.parley.media.dtls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.Locale;

/**
 * A self-signed ECDSA P-256 certificate, created once per process: WebRTC authenticates DTLS peers by the
 * certificate fingerprint carried in the (already authenticated) SDP, not by a CA chain.
 */
public final class DtlsCertificate {
    private final byte[] der;
    private final AsymmetricKeyParameter privateKey;
    private final String fingerprint;

    private DtlsCertificate(byte[] der, AsymmetricKeyParameter privateKey) {
        this.der = der;
        this.privateKey = privateKey;
        this.fingerprint = sha256Fingerprint(der);
    }

    public static DtlsCertificate generate() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
            KeyPair kp = g.generateKeyPair();
            Instant now = Instant.now();
            X500Name name = new X500Name("CN=parley");
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name,
                    new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofDays(1))),
                    Date.from(now.plus(Duration.ofDays(30))), name, kp.getPublic());
            X509CertificateHolder holder = b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate()));
            return new DtlsCertificate(holder.getEncoded(), PrivateKeyFactory.createKey(kp.getPrivate().getEncoded()));
        } catch (GeneralSecurityException | IOException | org.bouncycastle.operator.OperatorCreationException e) {
            throw new IllegalStateException("cannot create DTLS certificate", e);
        }
    }

    public byte[] der() { return der.clone(); }
    AsymmetricKeyParameter privateKey() { return privateKey; }

    /** "AB:CD:..." upper-case SHA-256 fingerprint, as in SDP a=fingerprint:sha-256. */
    public String fingerprint() { return fingerprint; }

    public static String sha256Fingerprint(byte[] der) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(der);
            String hex = HexFormat.ofDelimiter(":").formatHex(d);
            return hex.toUpperCase(Locale.ROOT);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Compares an SDP fingerprint value ("sha-256 AB:CD..." or just the hex) with a DER certificate. */
    public static boolean matches(String expectedHex, byte[] der) {
        if (expectedHex == null) return false;
        String actual = sha256Fingerprint(der);
        return MessageDigest.isEqual(actual.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                expectedHex.trim().toUpperCase(Locale.ROOT).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
}
