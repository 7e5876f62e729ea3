package dev.parley.controller.config;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ParleyConfigTest {
    @Test
    void devTokensOnlyInLocalModeOnLoopbackUnlessForced() {
        assertThat(ParleyConfig.from(Map.of("PARLEY_LOCAL_MODE", "true")::get).devTokensEnabled()).isTrue();
        assertThat(ParleyConfig.from(Map.<String, String>of()::get).devTokensEnabled()).isFalse();
        assertThat(ParleyConfig.from(Map.of("PARLEY_LOCAL_MODE", "true", "PARLEY_BIND_ADDRESS", "0.0.0.0")::get)
                .devTokensEnabled()).isFalse();
        assertThat(ParleyConfig.from(Map.of("PARLEY_LOCAL_MODE", "true", "PARLEY_BIND_ADDRESS", "0.0.0.0",
                "PARLEY_DEV_TOKENS_FORCE", "true")::get).devTokensEnabled()).isTrue();
    }

    @Test
    void effectiveConfigurationIsLoggedWithoutSecrets() {
        ParleyConfig c = ParleyConfig.from(Map.of("PARLEY_JWT_HMAC_SECRET", "hmac-very-secret-value",
                "PARLEY_INTERNAL_SECRET", "internal-very-secret", "PARLEY_DB_PASSWORD", "db-very-secret",
                "PARLEY_TURN_SECRETS", "turn-very-secret", "PARLEY_WEBHOOK_SECRET", "hook-very-secret")::get);
        String s = c.toString();
        for (String secret : new String[]{"hmac-very-secret", "internal-very-secret", "db-very-secret",
                "turn-very-secret", "hook-very-secret"}) {
            assertThat(s).doesNotContain(secret);
        }
        assertThat(s).contains("localMode=false");
    }

    @Test
    void defaultsMatchTheRuntimeConventions() {
        ParleyConfig c = ParleyConfig.from(Map.<String, String>of()::get);
        assertThat(c.httpPort()).isEqualTo(8080);
        assertThat(c.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(c.leaseTtlSeconds()).isEqualTo(5);
        assertThat(c.region()).isEqualTo("local");
        assertThat(c.signalingEndpoint()).isEqualTo("ws://127.0.0.1:8080/v1/connect");
        assertThat(c.reconnectGraceMillis()).isEqualTo(30_000);
    }

    @Test
    void unjoinedSocketBoundsDefaultAndOverride() {
        ParleyConfig d = ParleyConfig.from(Map.<String, String>of()::get);
        assertThat(d.signalingJoinTimeoutMillis()).isEqualTo(10_000);
        assertThat(d.signalingMaxUnjoinedPerSource()).isEqualTo(32);
        ParleyConfig c = ParleyConfig.from(Map.of("PARLEY_SIGNALING_JOIN_TIMEOUT_MILLIS", "2500",
                "PARLEY_SIGNALING_MAX_UNJOINED_PER_SOURCE", "0")::get);
        assertThat(c.signalingJoinTimeoutMillis()).isEqualTo(2500);
        assertThat(c.signalingMaxUnjoinedPerSource()).isZero();
        assertThat(c.toString()).contains("signalingJoinTimeout=2500ms").contains("signalingMaxUnjoinedPerSource=unlimited");
    }

    @Test
    void signalingEndpointFollowsThePublicScheme() {
        assertThat(ParleyConfig.from(Map.of("PARLEY_PUBLIC_URL", "https://meet.example")::get).signalingEndpoint())
                .isEqualTo("wss://meet.example/v1/connect");
        assertThat(ParleyConfig.from(Map.of("PARLEY_PUBLIC_URL", "http://10.0.0.5:8080")::get).signalingEndpoint())
                .isEqualTo("ws://10.0.0.5:8080/v1/connect");
    }
}
