package dev.parley.testsupport.local;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Creates {@code ./parley}'s local-mode secrets once, each in its own file with mode 0600 under a 0700
 * directory. Existing files are never overwritten (tokens and tickets issued earlier stay valid). Prints
 * only file names, never values.
 *
 * <pre>java -cp ... dev.parley.testsupport.local.LocalSecrets SECRETS_DIR</pre>
 */
public final class LocalSecrets {

    /** file name -> what it holds */
    public static final List<String> FILES = List.of(
            "internal-secret",       // PARLEY_INTERNAL_SECRET: bearer secret between pods
            "turn-secret",           // PARLEY_TURN_SECRETS: TURN REST-API shared secret
            "jwt-hmac-secret",       // PARLEY_JWT_HMAC_SECRET: signs dev user tokens
            "ticket-es256.jwk",      // PARLEY_TICKET_PRIVATE_JWK: signs connect tickets (controller)
            "ticket-es256.pub.jwk",  // PARLEY_TICKET_PUBLIC_JWK: verifies connect tickets (SFU)
            "s3-access-key",         // local s3proxy credentials for recordings
            "s3-secret-key");

    private static final SecureRandom RANDOM = new SecureRandom();

    private LocalSecrets() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: LocalSecrets SECRETS_DIR");
            System.exit(2);
        }
        List<String> created = generate(Path.of(args[0]));
        System.out.println(created.isEmpty() ? "secrets: all present" : "secrets: created " + String.join(", ", created));
    }

    /** Creates whatever is missing in {@code dir}; returns the names of files created. */
    public static List<String> generate(Path dir) throws IOException, JOSEException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        List<String> created = new ArrayList<>();
        for (String name : List.of("internal-secret", "turn-secret", "jwt-hmac-secret", "s3-secret-key")) {
            if (writeIfMissing(dir.resolve(name), randomToken(32))) {
                created.add(name);
            }
        }
        if (writeIfMissing(dir.resolve("s3-access-key"), "parley-local-" + randomToken(6).toLowerCase())) {
            created.add("s3-access-key");
        }
        Path priv = dir.resolve("ticket-es256.jwk");
        Path pub = dir.resolve("ticket-es256.pub.jwk");
        if (!Files.exists(priv) || !Files.exists(pub)) {
            ECKey key = new ECKeyGenerator(Curve.P_256)
                    .keyUse(KeyUse.SIGNATURE)
                    .algorithm(JWSAlgorithm.ES256)
                    .keyID("local-" + LocalDate.now())
                    .generate();
            Files.deleteIfExists(priv);
            Files.deleteIfExists(pub);
            writeIfMissing(priv, key.toJSONString());
            writeIfMissing(pub, key.toPublicJWK().toJSONString());
            created.add("ticket-es256.jwk");
            created.add("ticket-es256.pub.jwk");
        }
        return created;
    }

    /** 32 random bytes -> 43 url-safe base64 chars. */
    static String randomToken(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static boolean writeIfMissing(Path file, String value) throws IOException {
        if (Files.exists(file)) {
            return false;
        }
        // create with 0600 from the start: the value is never world-readable, not even briefly
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, value, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
        return true;
    }
}
