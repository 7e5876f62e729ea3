package dev.parley.logging;

import java.util.function.Function;

/** The name put on every log line as {@code pod}: the same pod id the process uses in etcd. */
public final class PodIdentity {
    private PodIdentity() {
    }

    /** {@code PARLEY_POD_NAME} (set by the operator and by ./parley), else {@code POD_NAME}, else {@code HOSTNAME}. */
    public static String resolve(Function<String, String> env) {
        for (String name : new String[]{"PARLEY_POD_NAME", "POD_NAME", "HOSTNAME"}) {
            String v = env.apply(name);
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        return "";
    }
}
