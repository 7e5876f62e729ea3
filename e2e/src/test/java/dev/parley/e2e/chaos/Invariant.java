package dev.parley.e2e.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One invariant of the chaos run: a name, a count of checks and of violations (overall and per phase: the fault
 * being injected or "steady"/"cleanup"), and the first few violations described. Subclasses check on every
 * {@link Observation} and/or {@link MediaWindow}, and at the end.
 */
abstract class Invariant {
    final String name;
    private long checks, violations;
    private final Map<String, long[]> byPhase = new LinkedHashMap<>();
    private final List<String> examples = new ArrayList<>();
    private volatile String phase = "steady";

    Invariant(String name) {
        this.name = name;
    }

    void phase(String p) {
        phase = p;
    }

    /** Records one check; {@code detail} is built only for a violation. */
    final synchronized boolean check(boolean holds, Supplier<String> detail) {
        checks++;
        long[] c = byPhase.computeIfAbsent(phase, k -> new long[2]);
        c[0]++;
        if (!holds) {
            violations++;
            c[1]++;
            if (examples.size() < 10) {
                String d = "[" + phase + "] " + detail.get();
                examples.add(d);
                ChaosPlatform.log("VIOLATION %s: %s", name, d);
            }
        }
        return holds;
    }

    void observe(Observation o) {
    }

    void window(MediaWindow w) {
    }

    synchronized long checks() {
        return checks;
    }

    synchronized long violations() {
        return violations;
    }

    synchronized Map<String, long[]> byPhase() {
        Map<String, long[]> copy = new LinkedHashMap<>();
        byPhase.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }

    synchronized List<String> examples() {
        return List.copyOf(examples);
    }
}
