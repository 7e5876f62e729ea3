package dev.parley.bench.controller;

import dev.parley.platform.ticket.TicketKeys;
import dev.parley.testsupport.postgres.PostgresExtension;

import java.util.Map;

/**
 * The environment a benchmark gives the real controller jar: loopback only, the bench's etcd and embedded PostgreSQL
 * database, its own secrets and a fresh ticket key, and no tenant cap (the load is the point). Shared by the
 * controller load bench and the signaling storm bench.
 */
public final class ControllerEnv {
    private ControllerEnv() {
    }

    /** Fills {@code env} for a controller named {@code pod} on {@code port}. */
    public static void fill(Map<String, String> env, String pod, String region, int port, String etcdEndpoint,
                            int pgPort, String db, String internalSecret, String jwtSecret) {
        env.put("PARLEY_POD_NAME", pod);
        env.put("PARLEY_REGION", region);
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_HTTP_PORT", String.valueOf(port));
        env.put("PARLEY_ETCD_ENDPOINTS", etcdEndpoint);
        env.put("PARLEY_INTERNAL_SECRET", internalSecret);
        env.put("PARLEY_DB_URL", "jdbc:postgresql://127.0.0.1:" + pgPort + "/" + db);
        env.put("PARLEY_DB_USER", PostgresExtension.user());
        env.put("PARLEY_DB_PASSWORD", PostgresExtension.password());
        env.put("PARLEY_JWT_HMAC_SECRET", jwtSecret);
        env.put("PARLEY_TICKET_PRIVATE_JWK", TicketKeys.generate().toJSONString());
        env.put("PARLEY_TENANT_MAX_CONCURRENT_PARTICIPANTS", "100000000");
    }
}
