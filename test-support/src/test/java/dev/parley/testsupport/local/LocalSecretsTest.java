package dev.parley.testsupport.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalSecretsTest {

    @TempDir
    Path dir;

    @Test
    void createsEverySecretOnceWithOwnerOnlyPermissions() throws Exception {
        Path secrets = dir.resolve("secrets");
        assertThat(LocalSecrets.generate(secrets)).containsExactlyInAnyOrderElementsOf(LocalSecrets.FILES);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secrets))).isEqualTo("rwx------");
        for (String name : LocalSecrets.FILES) {
            Path f = secrets.resolve(name);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(name).isEqualTo("rw-------");
            assertThat(Files.readString(f)).as(name).hasSizeGreaterThan(10);
        }
        String before = Files.readString(secrets.resolve("turn-secret"));
        assertThat(LocalSecrets.generate(secrets)).isEmpty();
        assertThat(Files.readString(secrets.resolve("turn-secret"))).isEqualTo(before);
    }

    @Test
    void ticketKeyPairSignsAndVerifiesES256() throws Exception {
        LocalSecrets.generate(dir);
        ECKey priv = ECKey.parse(Files.readString(dir.resolve("ticket-es256.jwk")));
        ECKey pub = ECKey.parse(Files.readString(dir.resolve("ticket-es256.pub.jwk")));
        assertThat(pub.isPrivate()).isFalse();
        assertThat(priv.isPrivate()).isTrue();

        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(priv.getKeyID()).build(),
                new JWTClaimsSet.Builder().subject("participant-1").build());
        jwt.sign(new ECDSASigner(priv));
        assertThat(SignedJWT.parse(jwt.serialize()).verify(new ECDSAVerifier(pub))).isTrue();
    }
}
