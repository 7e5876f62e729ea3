package dev.parley.turn.support;

import dev.parley.platform.turn.TurnCredential;
import dev.parley.platform.turn.TurnCredentials;
import dev.parley.platform.turn.TurnSecrets;
import dev.parley.turn.config.TurnConfig;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** Configuration and credentials for in-process TURN servers on loopback. */
public final class TurnFixture {
    public static final String SECRET = "test-secret-current";
    public static final String OLD_SECRET = "test-secret-old";

    private TurnFixture() {
    }

    public static Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_TURN_PORT", "0");
        env.put("PARLEY_TURN_REALM", TestTurnClient.REALM);
        env.put("PARLEY_TURN_SECRETS", SECRET + "," + OLD_SECRET);
        int base = 20000 + (int) (ProcessHandle.current().pid() % 200) * 100;
        env.put("PARLEY_TURN_RELAY_PORTS", base + "-" + (base + 99));
        // the relay tests' peers are sockets on ephemeral loopback ports (and CreatePermission carries port 0), so
        // the fixture opens every port of 127.0.0.1 by an explicit rule; the default stays deny (SfuPeerPortsIT)
        env.put("PARLEY_TURN_ALLOWED_PEERS", "127.0.0.1:0-65535");
        env.put("PARLEY_INTERNAL_PORT", String.valueOf(freePort()));
        env.put("PARLEY_TURN_EVENT_LOOPS", "2");
        return env;
    }

    public static TurnConfig config(Map<String, String> overrides) {
        Map<String, String> env = env();
        env.putAll(overrides);
        return TurnConfig.fromEnv(env);
    }

    public static TurnCredential credential(String secret, String participant, Duration ttl) {
        return new TurnCredentials(TurnSecrets.of(secret)).generate(participant, ttl, Instant.now());
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
