package dev.parley.operator.model;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;

/** metav1.Condition bookkeeping: lastTransitionTime only moves when the status flips. */
public final class Conditions {
    private Conditions() {
    }

    public static void set(List<Condition> conditions, String type, boolean status, String reason, String message,
                           Long observedGeneration) {
        String s = status ? "True" : "False";
        Condition existing = conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
        if (existing == null) {
            existing = new Condition();
            existing.setType(type);
            existing.setLastTransitionTime(Instant.now().toString());
            conditions.add(existing);
        } else if (!s.equals(existing.getStatus())) {
            existing.setLastTransitionTime(Instant.now().toString());
        }
        existing.setStatus(s);
        existing.setReason(reason);
        existing.setMessage(message);
        existing.setObservedGeneration(observedGeneration);
    }

    public static boolean isTrue(List<Condition> conditions, String type) {
        return conditions != null && conditions.stream().anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
