package dev.parley.platform.turn;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TurnCredentialsTest {
    static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);

    @Test
    void generatesRestCredentialMatchingIndependentHmac() throws Exception {
        TurnCredential c = new TurnCredentials(TurnSecrets.of("s3cret")).generate("p-42", Duration.ofHours(2), NOW);
        assertThat(c.username()).isEqualTo((1_800_000_000L + 7200) + ":p-42");
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec("s3cret".getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        String expected = Base64.getEncoder().encodeToString(mac.doFinal(c.username().getBytes(StandardCharsets.UTF_8)));
        assertThat(c.password()).isEqualTo(expected);
        assertThat(c.expiresAt()).isEqualTo(NOW.plusSeconds(7200));
        assertThat(c.toString()).doesNotContain(c.password());
    }

    @Test
    void verifiesAcrossRotationAndRefusesExpiredOrForged() {
        TurnCredential old = new TurnCredentials(TurnSecrets.of("old")).generate("p", Duration.ofMinutes(10), NOW);
        TurnCredentials rotated = new TurnCredentials(TurnSecrets.parse("new, old"));
        assertThat(rotated.verify(old.username(), old.password(), NOW)).isTrue();
        assertThat(rotated.passwords(old.username())).hasSize(2).contains(old.password());
        TurnCredential fresh = rotated.generate("p", Duration.ofMinutes(10), NOW);
        assertThat(new TurnCredentials(TurnSecrets.of("new")).verify(fresh.username(), fresh.password(), NOW)).isTrue();
        assertThat(new TurnCredentials(TurnSecrets.of("old")).verify(fresh.username(), fresh.password(), NOW)).isFalse();
        assertThat(rotated.verify(old.username(), old.password(), NOW.plusSeconds(600))).isFalse(); // expired
        assertThat(rotated.verify(old.username().replace(":p", ":q"), old.password(), NOW)).isFalse(); // forged
        assertThat(rotated.verify("99999999999:p", old.password(), NOW)).isFalse();
    }

    @Test
    void parsesUsernames() {
        assertThat(TurnCredentials.parseExpiry("1700000000:abc")).isEqualTo(1_700_000_000L);
        assertThat(TurnCredentials.participantId("1700000000:a:b")).isEqualTo("a:b");
        assertThat(TurnCredentials.parseExpiry("abc:1")).isEqualTo(-1);
        assertThat(TurnCredentials.parseExpiry(":x")).isEqualTo(-1);
        assertThat(TurnCredentials.parseExpiry("123:")).isEqualTo(-1);
        assertThat(TurnCredentials.parseExpiry("1234567890123:x")).isEqualTo(-1);
        assertThatThrownBy(() -> TurnSecrets.parse(" , ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TurnCredentials(TurnSecrets.of("s")).generate("a:b", Duration.ofHours(1), NOW))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(TurnSecrets.of("topsecret").toString()).doesNotContain("topsecret");
    }
}
