package dev.parley.operator.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the pods the operator creates are given: default images, the etcd endpoints they register in, the names
 * of the Secrets they read (by reference; no secret value is held here), and the log settings passed on to them.
 *
 * @param logEnv {@code PARLEY_LOG_FORMAT} / {@code PARLEY_LOG_LEVELS} as set on the operator (only those set, never
 *               blank); each SFU, TURN and recorder pod gets them unless its pool's template sets the same name
 */
public record PodSettings(String sfuImage, String turnImage, String recorderImage, String podEtcdEndpoints,
                          String internalSecretName, String turnSecretName, String ticketKeySecretName,
                          Map<String, String> logEnv) {
    /** The log variables the operator passes on (docs/configuration.md, "Logs"). */
    public static final List<String> LOG_VARIABLES = List.of("PARLEY_LOG_FORMAT", "PARLEY_LOG_LEVELS");

    public PodSettings {
        logEnv = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(logEnv));
    }

    /** Without log settings: the pods use their own defaults. */
    public PodSettings(String sfuImage, String turnImage, String recorderImage, String podEtcdEndpoints,
                       String internalSecretName, String turnSecretName, String ticketKeySecretName) {
        this(sfuImage, turnImage, recorderImage, podEtcdEndpoints, internalSecretName, turnSecretName,
                ticketKeySecretName, Map.of());
    }

    /** The {@link #LOG_VARIABLES} set (not blank) in {@code env}, in that order. */
    public static Map<String, String> logEnvFrom(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : LOG_VARIABLES) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                out.put(name, v.trim());
            }
        }
        return out;
    }
}
