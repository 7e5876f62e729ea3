package dev.parley.operator.model;

import java.util.Locale;

/** The five drain phases (seed 001), in order. The annotation value is e.g. {@code 3-migrating}. */
public enum DrainPhase {
    /** 1: DRAINING in etcd and on the pod; the pod was told via its internal drain endpoint. */
    DRAINING,
    /** 2: out of the Services and of SFU/TURN selection (label parley.dev/serving=false). */
    UNROUTED,
    /** 3: owners move meetings to healthy pods; the operator waits for the registry to report zero connections. */
    MIGRATING,
    /** 4: remaining connections get the rest of drain.timeoutSeconds. */
    GRACE,
    /** 5: verify empty, delete the pod, remove the registry entry, record the duration. */
    CLEANUP;

    public int number() {
        return ordinal() + 1;
    }

    public String annotation() {
        return number() + "-" + name().toLowerCase(Locale.ROOT);
    }

    public static DrainPhase fromAnnotation(String v) {
        if (v == null || v.isBlank()) {
            return null;
        }
        String name = v.contains("-") ? v.substring(v.indexOf('-') + 1) : v;
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
