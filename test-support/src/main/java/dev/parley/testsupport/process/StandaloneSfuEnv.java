package dev.parley.testsupport.process;

import java.util.Map;

/**
 * The environment (docs/configuration.md) of an SFU process that tests and benchmarks drive directly through its
 * internal API: loopback only, OS-chosen media ports, no etcd registration (nothing would read it).
 */
public final class StandaloneSfuEnv {

    private StandaloneSfuEnv() {
    }

    public static void apply(Map<String, String> env, String pod, int internalPort, String internalSecret,
                             String ticketPublicJwk) {
        env.put("PARLEY_POD_NAME", pod);
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        env.put("PARLEY_MEDIA_UDP_PORT", "0");
        env.put("PARLEY_MEDIA_TCP_PORT", "0");
        env.put("PARLEY_INTERNAL_PORT", Integer.toString(internalPort));
        env.put("PARLEY_INTERNAL_SECRET", internalSecret);
        env.put("PARLEY_TICKET_PUBLIC_JWK", ticketPublicJwk);
        env.put("PARLEY_SFU_LOOPBACK_PEERS_ONLY", "true");
        env.remove("PARLEY_ETCD_ENDPOINTS");
    }
}
