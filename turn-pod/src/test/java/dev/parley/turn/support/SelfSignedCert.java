package dev.parley.turn.support;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;

/** Writes a fresh self-signed EC certificate and PKCS#8 key as PEM files (what a Kubernetes TLS secret mounts). */
public final class SelfSignedCert {
    private SelfSignedCert() {
    }

    /** Writes cert and key; returns the SHA-256 fingerprint of the DER certificate (hex). */
    public static String write(Path cert, Path key, String cn) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        KeyPair kp = g.generateKeyPair();
        Instant now = Instant.now();
        X509CertificateHolder holder = new JcaX509v3CertificateBuilder(new X500Name("CN=" + cn),
                BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minus(Duration.ofMinutes(1))),
                Date.from(now.plus(Duration.ofDays(1))), new X500Name("CN=" + cn), kp.getPublic())
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate()));
        StringWriter c = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(c)) {
            w.writeObject(holder);
        }
        StringWriter k = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(k)) {
            w.writeObject(new org.bouncycastle.util.io.pem.PemObject("PRIVATE KEY", kp.getPrivate().getEncoded()));
        }
        Files.writeString(cert, c.toString());
        Files.writeString(key, k.toString());
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(holder.getEncoded()));
    }
}
