package dev.parley.logging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/** The name put on every log line as {@code pod}: the same pod id the process uses in etcd. */
public final class PodIdentity {
    private PodIdentity() {
    }

    /**
     * {@code PARLEY_POD_NAME} (set by the operator and by ./parley), else {@code POD_NAME}, else {@code HOSTNAME}
     * (Kubernetes sets it to the pod's name), else /etc/hostname; empty when none is known. No DNS look-up: a
     * resolver that hangs must not hold up the first log line.
     */
    public static String resolve(Function<String, String> env) {
        for (String name : new String[]{"PARLEY_POD_NAME", "POD_NAME", "HOSTNAME"}) {
            String v = env.apply(name);
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        return "";
    }

    /** {@link #resolve} on the process environment, with /etc/hostname as the last resort. */
    public static String ofProcess() {
        String pod = resolve(System::getenv);
        if (pod.isEmpty()) {
            try {
                pod = Files.readString(Path.of("/etc/hostname")).trim();
            } catch (IOException | RuntimeException e) {
                pod = "";
            }
        }
        return pod;
    }
}
