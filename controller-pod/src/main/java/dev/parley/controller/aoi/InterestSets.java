package dev.parley.controller.aoi;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One meeting's positions and each receiver's interest set (the participants within the radius, nearest first, at
 * most K). A move changes only the sets of receivers within the radius of the old or the new position (and the
 * mover's own), so only those are recomputed; the answer lists the receivers whose set changed as a set (a mere
 * reordering is not a change). Not thread-safe: the meeting's owner state locks.
 */
public final class InterestSets {
    private final AoiSettings settings;
    private final AoiIndex index;
    private final Map<String, List<String>> current = new HashMap<>();

    public InterestSets(AoiSettings settings) {
        this.settings = settings;
        this.index = new AoiIndex(settings.radius());
    }

    public AoiSettings settings() {
        return settings;
    }

    /** Puts {@code id} at {@code p}; the receivers whose interest set changed, with their new sets. */
    public Map<String, List<String>> move(String id, Position p) {
        Set<String> affected = new HashSet<>();
        affected.add(id);
        double[] old = index.position(id);
        if (old != null) {
            affected.addAll(index.near(old[0], old[1], settings.radius(), Integer.MAX_VALUE, id));
        }
        index.put(id, p.x(), p.y());
        affected.addAll(index.near(p.x(), p.y(), settings.radius(), Integer.MAX_VALUE, id));
        return recompute(affected);
    }

    /** Forgets {@code id} (it left); the receivers whose set changed. */
    public Map<String, List<String>> remove(String id) {
        double[] old = index.position(id);
        if (old == null) {
            return Map.of();
        }
        index.remove(id);
        current.remove(id);
        return recompute(new HashSet<>(index.near(old[0], old[1], settings.radius(), Integer.MAX_VALUE, null)));
    }

    /** The interest set last computed for {@code id} (empty before its first position). */
    public List<String> of(String id) {
        return current.getOrDefault(id, List.of());
    }

    public int size() {
        return index.size();
    }

    private Map<String, List<String>> recompute(Set<String> receivers) {
        Map<String, List<String>> changed = new LinkedHashMap<>();
        for (String r : receivers.stream().sorted().toList()) {
            double[] at = index.position(r);
            List<String> now = index.near(at[0], at[1], settings.radius(), settings.maxParticipants(), r);
            List<String> before = current.put(r, now);
            if (before == null || !new HashSet<>(before).equals(new HashSet<>(now))) {
                changed.put(r, now);
            }
        }
        return changed;
    }
}
