package dev.parley.platform.ticket;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.UUID;

/**
 * Loading and generating the ES256 key pair that signs connect tickets. Keys are JWKs (JSON); a value
 * starting with {@code @} or {@code /} is read from a file. Never log the private JWK.
 */
public final class TicketKeys {
    private TicketKeys() {
    }

    /** A fresh P-256 key pair (local mode and tests). */
    public static ECKey generate() {
        try {
            return new ECKeyGenerator(Curve.P_256).keyID("ticket-" + UUID.randomUUID()).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot generate P-256 key", e);
        }
    }

    /** Parses a JWK given inline or as {@code @/path} / {@code /path}. */
    public static ECKey parse(String jwkOrFile) {
        String text = jwkOrFile.trim();
        try {
            if (text.startsWith("@") || text.startsWith("/")) {
                text = Files.readString(Path.of(text.startsWith("@") ? text.substring(1) : text)).trim();
            }
            ECKey key = ECKey.parse(text);
            if (!Curve.P_256.equals(key.getCurve())) {
                throw new IllegalArgumentException("ticket key must be on P-256 (ES256)");
            }
            return key;
        } catch (ParseException | IOException e) {
            throw new IllegalArgumentException("unreadable ticket JWK: " + e.getMessage(), e);
        }
    }

    /** Parses a private key and checks that it is one. */
    public static ECKey parsePrivate(String jwkOrFile) {
        ECKey k = parse(jwkOrFile);
        if (!k.isPrivate()) {
            throw new IllegalArgumentException("ticket signing JWK has no private part");
        }
        return k;
    }
}
