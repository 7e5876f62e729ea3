package dev.parley.controller.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CorsOriginsTest {

    @Test
    void emptyMeansOffAndAddsNoMicronautSettings() {
        for (String v : new String[] {null, "", " , "}) {
            CorsOrigins c = CorsOrigins.parse(v);
            assertThat(c.enabled()).isFalse();
            Map<String, Object> p = new HashMap<>();
            c.addMicronautProperties(p);
            assertThat(p).isEmpty();
        }
        assertThat(ParleyConfig.from(k -> null).toMicronautProperties()).doesNotContainKey("micronaut.server.cors.enabled");
    }

    @Test
    void originsAreExactAndNormalisedAsBrowsersSendThem() {
        CorsOrigins c = CorsOrigins.parse(" https://App.Example.org:443 , http://127.0.0.1:5173,http://localhost:80 ");
        assertThat(c.origins()).containsExactly("https://app.example.org", "http://127.0.0.1:5173", "http://localhost");
    }

    @Test
    void anythingButAnOriginStopsStartUpNamingTheEntry() {
        for (String bad : List.of("*", "https://*.example.org", "app.example.org", "https://app.example.org/",
                "https://app.example.org/path", "ftp://files.example.org", "https://user@app.example.org", "https://a b")) {
            assertThatThrownBy(() -> CorsOrigins.parse("http://ok.example.org," + bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PARLEY_CORS_ALLOWED_ORIGINS")
                    .hasMessageContaining(bad.trim());
        }
    }

    @Test
    void enabledTurnsMicronautCorsOnForTheListWithTheApiHeaders() {
        ParleyConfig cfg = ParleyConfig.from(Map.of("PARLEY_CORS_ALLOWED_ORIGINS", "https://app.example.org")::get);
        Map<String, Object> p = cfg.toMicronautProperties();
        String c = "micronaut.server.cors.configurations.api.";
        assertThat(p).containsEntry("micronaut.server.cors.enabled", true)
                .containsEntry(c + "allowed-origins", List.of("https://app.example.org"))
                .containsEntry(c + "allow-credentials", false);
        assertThat(String.valueOf(p.get(c + "allowed-headers"))).contains("Authorization", "Idempotency-Key", "Content-Type");
        assertThat(String.valueOf(p.get(c + "exposed-headers"))).contains("Retry-After");
        assertThat(cfg.toString()).contains("cors=[https://app.example.org]");
    }
}
